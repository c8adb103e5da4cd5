! EXIT ends a loop early (blocker exit); CYCLE does not.  "exit outer"
! from the inner loop leaves both loops.  "cycle rows" from the inner
! loop ends the inner loop early (exit for the inner loop) but only
! starts the next iteration of the outer loop (outer stays parallel).
! A plain EXIT in the inner loop leaves only the inner loop.
program exit_statement_sequential
  implicit none
  integer, parameter :: n = 10, m = 4
  real :: a(n), b(n), c(n), g(n,m), h(n,m), lim
  integer :: i, j, cnt(m)

  ! EXPECT: parallel
  do i = 1, n
    a(i) = real(i) - 6.5
    b(i) = 0.0
    c(i) = 0.0
  end do
  ! EXPECT: parallel
  do j = 1, m
    ! EXPECT: parallel
    do i = 1, n
      g(i,j) = real(i*j) - real(2*m)
      h(i,j) = 0.0
    end do
  end do

  ! EXPECT: sequential blockers(exit)
  do i = 1, n
    if (a(i) > 0.0) exit
    b(i) = -a(i)
  end do

  ! EXPECT: parallel
  do i = 1, n
    if (a(i) < 0.0) cycle
    c(i) = sqrt(a(i))
  end do

  lim = 20.0
  ! EXPECT: sequential blockers(exit)
  outer: do j = 1, m
    ! EXPECT: sequential blockers(exit)
    do i = 1, n
      if (g(i,j) > lim) exit outer
      h(i,j) = g(i,j)
    end do
  end do outer

  ! EXPECT: parallel
  rows: do j = 1, m
    ! EXPECT: sequential blockers(exit)
    do i = 1, n
      if (g(i,j) > 0.0) cycle rows
      h(i,j) = h(i,j) - 1.0
    end do
  end do rows

  ! EXPECT: parallel
  do j = 1, m
    ! EXPECT: sequential blockers(exit)
    do i = 1, n
      if (g(i,j) > 2.0) exit
      h(i,j) = h(i,j) + 0.5
    end do
    cnt(j) = i
  end do

  print '(10f6.1)', b
  print '(10f6.2)', c
  print '(4i4, 2f8.2)', cnt, sum(h), h(n,m)
end program exit_statement_sequential
