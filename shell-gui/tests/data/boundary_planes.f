      program bplane
c     Smoothing next to the boundaries of the second dimension, in
c     the manner of a fourth-order dissipation: one loop over I
c     updates the two planes J = 2 and 3 together, another the two
c     planes before the last, and the boundary planes copy their
c     neighbours, both in one loop.
      implicit none
      integer nx, ny, nz
      parameter (nx = 10, ny = 8, nz = 5)
      double precision u(4, nx, ny, nz), r(4, nx, ny, nz)
      double precision s(ny)
      integer i, j, k, m, it
      do k = 1, nz
         do j = 1, ny
            do i = 1, nx
               do m = 1, 4
                  u(m,i,j,k) = dble(m + 2*i + 3*j*j + 5*k) / dble(7+m)
                  r(m,i,j,k) = 0.0d0
               end do
            end do
         end do
      end do
      do it = 1, 3
         do k = 1, nz
            do i = 1, nx
               do m = 1, 4
                  u(m,i,1,k) = 0.5d0 * u(m,i,2,k)
                  u(m,i,ny,k) = 0.5d0 * u(m,i,ny-1,k)
               end do
            end do
         end do
         do k = 2, nz - 1
            do j = 2, ny - 1
               do i = 1, nx
                  do m = 1, 4
                     r(m,i,j,k) = r(m,i,j,k) + u(m,i,j-1,k)
     >                          - u(m,i,j+1,k)
                  end do
               end do
            end do
            do i = 1, nx
               do m = 1, 4
                  r(m,i,2,k) = r(m,i,2,k) - 0.25d0 * (5.0d0*u(m,i,2,k)
     >                 - 4.0d0*u(m,i,3,k) + u(m,i,4,k))
                  r(m,i,3,k) = r(m,i,3,k) - 0.25d0 * (-4.0d0*u(m,i,2,k)
     >                 + 6.0d0*u(m,i,3,k) - 4.0d0*u(m,i,4,k)
     >                 + u(m,i,5,k))
               end do
            end do
            do i = 1, nx
               do m = 1, 4
                  r(m,i,ny-2,k) = r(m,i,ny-2,k) - 0.25d0 *
     >                 (u(m,i,ny-4,k) - 4.0d0*u(m,i,ny-3,k)
     >                 + 6.0d0*u(m,i,ny-2,k) - 4.0d0*u(m,i,ny-1,k))
                  r(m,i,ny-1,k) = r(m,i,ny-1,k) - 0.25d0 *
     >                 (u(m,i,ny-3,k) - 4.0d0*u(m,i,ny-2,k)
     >                 + 5.0d0*u(m,i,ny-1,k))
               end do
            end do
         end do
         do k = 1, nz
            do j = 1, ny
               do i = 1, nx
                  do m = 1, 4
                     u(m,i,j,k) = u(m,i,j,k) + 0.125d0 * r(m,i,j,k)
                  end do
               end do
            end do
         end do
      end do
      do j = 1, ny
         s(j) = 0.0d0
         do k = 1, nz
            do i = 1, nx
               do m = 1, 4
                  s(j) = s(j) + u(m,i,j,k) * dble(m + i + k)
               end do
            end do
         end do
      end do
      do j = 1, ny
         print '(i3, f22.9)', j, s(j)
      end do
      end
