c     Conjugate-gradient steps on a matrix in CSR form (NPB CG's shape):
c     the nonzeros A are the heaviest array, but a loop that shifts them
c     and their columns along a row carries a dependence on COLIDX; the
c     vectors can be divided, with the row pointers ROWSTR along them,
c     and sequential loops over a row take their bounds from ROWSTR.
      program csr
      integer n, nz
      parameter (n = 300, nz = 1500)
      double precision a(nz), x(n), p(n), q(n), r(n), s, rho, alpha
      integer colidx(nz), rowstr(n + 1), j, k, kk, it, t, cbuf(nz)
c     (COLIDX shares its storage: it stays replicated)
      equivalence (colidx, cbuf)
      rowstr(1) = 1
      do j = 1, n
         rowstr(j + 1) = rowstr(j) + 5
      end do
      do j = 1, n
         do k = rowstr(j), rowstr(j + 1) - 1
            colidx(k) = mod(j * 7 + (k - rowstr(j)) * 13, n) + 1
            a(k) = 1.0d0 / (k + j)
         end do
      end do
c     rotate each row by one place (a shift along the row, as an
c     insertion does)
      do j = 1, n
         t = colidx(rowstr(j + 1) - 1)
         s = a(rowstr(j + 1) - 1)
         do kk = rowstr(j + 1) - 2, rowstr(j), -1
            if (colidx(kk) .gt. 0) then
               a(kk + 1) = a(kk)
               colidx(kk + 1) = colidx(kk)
            end if
         end do
         colidx(rowstr(j)) = t
         a(rowstr(j)) = s
      end do
      do j = 1, n
         x(j) = 1.0d0
         r(j) = 1.0d0 + mod(j, 7)
         p(j) = r(j)
      end do
      do it = 1, 20
         do k = 1, nz
            a(k) = a(k) * 0.999d0 + 1.0d-6 * colidx(k)
         end do
         do j = 1, n
            s = 0.0d0
            do k = rowstr(j), rowstr(j + 1) - 1
               s = s + a(k) * p(colidx(k))
            end do
            q(j) = s + 2.0d0 * p(j) + 1.0d-3 * r(j)
         end do
         rho = 0.0d0
         alpha = 0.0d0
         do j = 1, n
            rho = rho + r(j) * r(j)
            alpha = alpha + p(j) * q(j)
         end do
         alpha = rho / alpha
         do j = 1, n
            x(j) = x(j) + alpha * p(j)
            r(j) = r(j) - alpha * q(j)
         end do
         s = 0.0d0
         do j = 1, n
            s = s + r(j) * r(j)
         end do
         do j = 1, n
            p(j) = r(j) + (s / rho) * p(j)
         end do
      end do
      s = 0.0d0
      do j = 1, n
         s = s + x(j) * j
      end do
      print '(a, f18.4)', 'x', s
      print '(a, i8, i8)', 'cols', colidx(7), colidx(nz - 3)
      end
