! In-place 3-D Gauss-Seidel sweep: every neighbour is at distance 1 in
! exactly one dimension, so each of the three loops is ACROSS.
program gauss_seidel_3d_across
  implicit none
  integer, parameter :: n = 12
  real :: u(n,n,n), s
  integer :: i, j, k

  ! EXPECT: parallel
  do k = 1, n
    ! EXPECT: parallel
    do j = 1, n
      ! EXPECT: parallel
      do i = 1, n
        u(i,j,k) = real(i + 2*j + 3*k) / real(n)
      end do
    end do
  end do

  ! EXPECT: across
  do k = 2, n - 1
    ! EXPECT: across
    do j = 2, n - 1
      ! EXPECT: across
      do i = 2, n - 1
        u(i,j,k) = (u(i-1,j,k) + u(i+1,j,k) + u(i,j-1,k) + u(i,j+1,k) &
                  + u(i,j,k-1) + u(i,j,k+1)) / 6.0
      end do
    end do
  end do

  s = 0.0
  ! EXPECT: parallel reduction(sum:s)
  do k = 1, n
    ! EXPECT: parallel reduction(sum:s)
    do j = 1, n
      ! EXPECT: parallel reduction(sum:s)
      do i = 1, n
        s = s + u(i,j,k)
      end do
    end do
  end do
  print '(a, f12.5)', ' sum =', s
end program gauss_seidel_3d_across
