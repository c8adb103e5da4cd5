! Which loop of a nest carries a constant-distance dependence.
! a(i,j) = a(i+1,j-1): distance vector (1,-1), carried by j (across);
! with j fixed there is no dependence, so i is parallel.
! b(i,j) from b(i,j-1): carried by j only.  c(i,j) from c(i-1,j):
! carried by i only, the j loop is parallel.
program skewed_dependence_across
  implicit none
  integer, parameter :: n = 8
  real :: a(n,n), b(n,n), c(n,n), s
  integer :: i, j

  ! EXPECT: parallel
  do j = 1, n
    ! EXPECT: parallel
    do i = 1, n
      a(i,j) = real(i + j)
      b(i,j) = real(i)
      c(i,j) = real(j)
    end do
  end do

  ! EXPECT: across
  do j = 2, n
    ! EXPECT: parallel
    do i = 1, n - 1
      a(i,j) = a(i+1,j-1) + 1.0
    end do
  end do

  ! EXPECT: across
  do j = 2, n
    ! EXPECT: parallel
    do i = 1, n
      b(i,j) = b(i,j-1) * 0.5 + c(i,j)
    end do
  end do

  ! EXPECT: parallel
  do j = 1, n
    ! EXPECT: across
    do i = 2, n
      c(i,j) = c(i-1,j) + 1.0
    end do
  end do

  s = 0.0
  ! EXPECT: parallel reduction(sum:s)
  do j = 1, n
    ! EXPECT: parallel reduction(sum:s)
    do i = 1, n
      s = s + a(i,j) + b(i,j) + c(i,j)
    end do
  end do
  print '(a, f12.4)', ' s =', s
end program skewed_dependence_across
