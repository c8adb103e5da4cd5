! 3-D heat diffusion, explicit (Jacobi-style) time stepping.
! The new temperature is computed from the old field into a separate
! array, then copied back while the largest change is reduced.
! Every fifth step prints a checksum of the field and that maximum
! change.  Boundary faces keep their initial values.
program heat3d
  implicit none
  integer, parameter :: n = 120, nsteps = 20, nprint = 5
  double precision, parameter :: alpha = 0.125d0
  double precision :: u(n,n,n), unew(n,n,n)
  double precision :: maxdiff, checksum
  integer :: i, j, k, step, c

  c = n / 2

  ! initial state: cold block, a hot bottom face whose temperature
  ! rises with i and j, and a warm off-centre box inside
  do k = 1, n
    do j = 1, n
      do i = 1, n
        if (k == 1) then
          u(i,j,k) = 50.0d0 + 50.0d0 * dble(i + 2*j) / dble(3*n)
        else if (abs(i - c) < 10 .and. abs(j - c + 7) < 12 .and. abs(k - c - 5) < 8) then
          u(i,j,k) = 80.0d0
        else
          u(i,j,k) = 0.0d0
        end if
        unew(i,j,k) = u(i,j,k)
      end do
    end do
  end do

  do step = 1, nsteps
    do k = 2, n - 1
      do j = 2, n - 1
        do i = 2, n - 1
          unew(i,j,k) = u(i,j,k) + alpha * (u(i-1,j,k) + u(i+1,j,k) &
                      + u(i,j-1,k) + u(i,j+1,k) + u(i,j,k-1) + u(i,j,k+1) &
                      - 6.0d0 * u(i,j,k))
        end do
      end do
    end do

    maxdiff = 0.0d0
    do k = 2, n - 1
      do j = 2, n - 1
        do i = 2, n - 1
          maxdiff = max(maxdiff, abs(unew(i,j,k) - u(i,j,k)))
          u(i,j,k) = unew(i,j,k)
        end do
      end do
    end do

    if (mod(step, nprint) == 0) then
      checksum = 0.0d0
      do k = 1, n
        do j = 1, n
          do i = 1, n
            checksum = checksum + u(i,j,k)
          end do
        end do
      end do
      print '(a, i4, a, f16.3, a, f12.8)', ' step', step, '  checksum =', &
            checksum, '  maxdiff =', maxdiff
    end if
  end do

  print '(a, 3f12.6)', ' probes:', u(c,c,c), u(c+3,c-5,3), u(c,c-7,c+5)
end program heat3d
