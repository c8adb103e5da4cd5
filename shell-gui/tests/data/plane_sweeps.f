c     Plane sweeps (NPB LU's shape): a sequential loop over K calls a
c     procedure that reads plane K of U next to each point (JAC), and a
c     lower-triangular sweep over the plane (LOWER) that reads the points
c     below and before it, with constant first subscripts, and plane K-1.
      program planes
      integer n, nk
      parameter (n = 16, nk = 16)
      double precision u(5, n, n, nk), v(5, n, n, nk), d(5, n, n)
      common /fld/ u, v, d
      integer i, j, k, m, it
      double precision s
      do k = 1, nk
         do j = 1, n
            do i = 1, n
               do m = 1, 5
                  u(m, i, j, k) = 1.0d0 + mod(i * 7 + j * 3 + k + m, 11)
                  v(m, i, j, k) = 0.5d0 * mod(i + j * 5 + k * 2 + m, 7)
               end do
            end do
         end do
      end do
      do it = 1, 3
         do k = 2, nk
            call jac(k, n, nk)
            call lower(v, d, k, n, nk)
         end do
      end do
      s = 0.0d0
      do k = 1, nk
         do j = 1, n
            do i = 1, n
               do m = 1, 5
                  s = s + v(m, i, j, k) * (m + i) + d(m, i, j)
               end do
            end do
         end do
      end do
      print '(a, f20.6)', 'checksum', s
      end

      subroutine jac(k, n, nk)
      integer k, n, nk, i, j, m
      double precision u(5, 16, 16, 16), v(5, 16, 16, 16), d(5, 16, 16)
      common /fld/ u, v, d
      do j = 2, n
         do i = 2, n
            do m = 1, 5
               d(m, i, j) = 0.25d0 * (u(m, i - 1, j, k)
     >                    + u(m, i, j - 1, k)) + 0.1d0 * u(1, i, j, k)
            end do
         end do
      end do
      end

      subroutine lower(v, d, k, n, nk)
      integer k, n, nk, i, j, m
      double precision v(5, n, n, nk), d(5, n, n), t(5)
      do j = 2, n
         do i = 2, n
            do m = 1, 5
               t(m) = 0.2d0 * (v(1, i - 1, j, k) + v(m, i, j - 1, k))
            end do
            do m = 1, 5
               v(m, i, j, k) = 0.3d0 * v(m, i, j, k) + t(m)
     >              + 0.1d0 * v(m, i, j, k - 1) + 0.01d0 * d(m, i, j)
            end do
         end do
      end do
      end
