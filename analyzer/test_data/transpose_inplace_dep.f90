! a(i,j) = a(j,i) in place over the full square: iteration (j1,i1)
! writes a(i1,j1), read later by iteration (j2,i2) = (i1,j1), so the
! distance (i1-j1, j1-i1) varies: the j loop is sequential (dep).  With
! j fixed, the i loop writes column j and reads row j; they meet only in
! a(j,j), touched by the single iteration i = j: the i loop is parallel.
! The out-of-place transpose is parallel at both levels, and so is the
! triangular swap (i < j), which never touches an element twice.
program transpose_inplace_dep
  implicit none
  integer, parameter :: n = 6
  real :: a(n,n), b(n,n), c(n,n), t, s
  integer :: i, j

  ! EXPECT: parallel
  do j = 1, n
    ! EXPECT: parallel
    do i = 1, n
      a(i,j) = real(10*i + j)
      c(i,j) = real(i - j)
    end do
  end do

  ! EXPECT: parallel
  do j = 1, n
    ! EXPECT: parallel
    do i = 1, n
      b(i,j) = a(j,i)
    end do
  end do

  ! EXPECT: sequential blockers(dep)
  do j = 1, n
    ! EXPECT: parallel
    do i = 1, n
      a(i,j) = a(j,i) + 1.0
    end do
  end do

  ! EXPECT: parallel private(t)
  do j = 2, n
    ! EXPECT: parallel private(t)
    do i = 1, j - 1
      t = c(i,j)
      c(i,j) = c(j,i)
      c(j,i) = t
    end do
  end do

  s = 0.0
  ! EXPECT: parallel reduction(sum:s)
  do j = 1, n
    ! EXPECT: parallel reduction(sum:s)
    do i = 1, n
      s = s + a(i,j) * real(i) + b(i,j) + c(i,j) * real(j)
    end do
  end do
  print '(a, f12.2)', ' s =', s
end program transpose_inplace_dep
