! User hints in the source (!$SPF) are honoured like database overrides:
! an indirect write the analysis cannot prove safe is declared parallel,
! a temporary the analysis sees as carried is declared private, a loop
! that would be parallel is kept sequential, and a reduction is declared.
! Without the hints the second, third and fifth loops are sequential.
program spf_hints
  implicit none
  integer, parameter :: n = 10
  integer :: i, idx(n)
  real :: a(n), b(n), t, s
  ! EXPECT: parallel
  do i = 1, n
    idx(i) = n - i + 1
    b(i) = real(i)
  end do
  ! the permutation idx is a bijection: the user knows the loop is parallel
  !$SPF PARALLEL
  ! EXPECT: parallel
  do i = 1, n
    a(idx(i)) = b(i) * 2.0
  end do
  t = 0.0
  ! every path assigns t before the read (through GOTOs the analysis does not follow)
  !$SPF ANALYSIS(PRIVATE(T))
  ! EXPECT: parallel private(t)
  do i = 1, n
    if (b(i) > 5.0) goto 10
    t = b(i)
    goto 20
10  t = -b(i)
20  a(i) = a(i) + t
  end do
  !$SPF SEQUENTIAL
  ! EXPECT: sequential blockers(user)
  do i = 1, n
    b(i) = a(i) + 1.0
  end do
  s = 0.0
  ! a maximum written as a block IF, which the analysis does not recognize
  !$SPF ANALYSIS(REDUCTION(MAX(S)))
  ! EXPECT: parallel reduction(max:s)
  do i = 1, n
    if (b(i) > s) then
      s = b(i)
    end if
  end do
  print '(3f10.3)', a(1), b(n), s
end program
