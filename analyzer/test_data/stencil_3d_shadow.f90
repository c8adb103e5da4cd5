! 3-D Jacobi-style stencil: b is computed from neighbours of a (shadow
! width 1 in j and k, 2 in i), then copied back.  Every loop of each
! nest is parallel; the time loop carries a from step to step (dep).
program stencil_3d_shadow
  implicit none
  integer, parameter :: n = 16, nsteps = 4
  real :: a(n,n,n), b(n,n,n), total
  integer :: i, j, k, step

  ! EXPECT: parallel
  do k = 1, n
    ! EXPECT: parallel
    do j = 1, n
      ! EXPECT: parallel
      do i = 1, n
        a(i,j,k) = real(mod(i*j + k, 7))
        b(i,j,k) = 0.0
      end do
    end do
  end do

  ! EXPECT: sequential blockers(dep)
  do step = 1, nsteps
    ! EXPECT: parallel
    do k = 2, n - 1
      ! EXPECT: parallel
      do j = 2, n - 1
        ! EXPECT: parallel
        do i = 3, n - 2
          b(i,j,k) = (a(i-1,j,k) + a(i+1,j,k) + a(i,j-1,k) + a(i,j+1,k) &
                    + a(i,j,k-1) + a(i,j,k+1)) / 6.0 &
                    + 0.01 * (a(i-2,j,k) + a(i+2,j,k))
        end do
      end do
    end do
    ! EXPECT: parallel
    do k = 2, n - 1
      ! EXPECT: parallel
      do j = 2, n - 1
        ! EXPECT: parallel
        do i = 3, n - 2
          a(i,j,k) = b(i,j,k)
        end do
      end do
    end do
  end do

  total = 0.0
  ! EXPECT: parallel reduction(sum:total)
  do k = 1, n
    ! EXPECT: parallel reduction(sum:total)
    do j = 1, n
      ! EXPECT: parallel reduction(sum:total)
      do i = 1, n
        total = total + a(i,j,k)
      end do
    end do
  end do
  print '(a, f12.4)', ' checksum =', total
end program stencil_3d_shadow
