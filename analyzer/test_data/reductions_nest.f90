! Reductions in loop nests.  A sum over the whole nest is a reduction
! at both levels.  Column sums reset s in every j iteration: s is
! private to the j loop and a sum reduction of the i loop.  A running
! total that is read after each column is carried by the j loop
! (scalar) but is still a reduction of the inner i loop.
program reductions_nest
  implicit none
  integer, parameter :: n = 8, m = 6
  real :: a(n,m), colsum(m), running(m), total, s, r, big, amax
  integer :: i, j

  ! EXPECT: parallel
  do j = 1, m
    ! EXPECT: parallel
    do i = 1, n
      a(i,j) = real(mod(i*5 + j*3, 13)) - 4.0
    end do
  end do

  total = 0.0
  ! EXPECT: parallel reduction(sum:total)
  do j = 1, m
    ! EXPECT: parallel reduction(sum:total)
    do i = 1, n
      total = total + a(i,j)
    end do
  end do

  big = -1.0e30
  ! EXPECT: parallel private(s) reduction(max:big)
  do j = 1, m
    s = 0.0
    ! EXPECT: parallel reduction(sum:s)
    do i = 1, n
      s = s + a(i,j)
    end do
    colsum(j) = s
    big = max(big, s)
  end do

  r = 0.0
  ! EXPECT: sequential blockers(scalar)
  do j = 1, m
    ! EXPECT: parallel reduction(sum:r)
    do i = 1, n
      r = r + a(i,j)
    end do
    running(j) = r
  end do

  amax = -1.0e30
  ! EXPECT: parallel reduction(max:amax)
  do j = 1, m
    ! EXPECT: parallel reduction(max:amax)
    do i = 1, n
      amax = max(amax, abs(a(i,j)))
    end do
  end do

  print '(a, f8.2, a, f8.2, a, f8.2)', ' total =', total, ' big =', big, ' amax =', amax
  print '(6f7.1)', colsum
  print '(6f7.1)', running
end program reductions_nest
