c     Fluxes along J (NPB LU's eta direction in RHS): the loop over K is
c     parallel, but its iterations touch every I, and the loops over I
c     inside it each keep their work array F to one I.
      program eta
      integer n
      parameter (n = 16)
      double precision u(5, n, n, n), r(5, n, n, n), f(5, n), s
      integer i, j, k, m, it
      do k = 1, n
         do j = 1, n
            do i = 1, n
               do m = 1, 5
                  u(m, i, j, k) = 1.0d0 + mod(i * 3 + j * 5 + k + m, 13)
                  r(m, i, j, k) = 0.0d0
               end do
            end do
         end do
      end do
      do it = 1, 2
         do k = 2, n - 1
            do i = 2, n - 1
               do j = 1, n
                  do m = 1, 5
                     f(m, j) = u(m, i, j, k) * (0.5d0 + 0.1d0 * m)
                  end do
               end do
               do j = 2, n - 1
                  do m = 1, 5
                     r(m, i, j, k) = r(m, i, j, k)
     >                    - 0.1d0 * (f(m, j + 1) - f(m, j - 1))
                  end do
               end do
            end do
            do i = 2, n - 1
               do m = 1, 5
                  r(m, i, 2, k) = r(m, i, 2, k) + 0.01d0 * u(m, i, 3, k)
               end do
            end do
         end do
         do k = 2, n - 1
            do j = 2, n - 1
               do i = 2, n - 1
                  do m = 1, 5
                     u(m, i, j, k) = u(m, i, j, k)
     >                    + 0.5d0 * r(m, i, j, k)
                  end do
               end do
            end do
         end do
      end do
      s = 0.0d0
      do k = 1, n
         do j = 1, n
            do i = 1, n
               do m = 1, 5
                  s = s + u(m, i, j, k) * m + r(m, i, j, k)
               end do
            end do
         end do
      end do
      print '(a, f20.6)', 'checksum', s
      end
