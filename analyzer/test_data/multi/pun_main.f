C     A DOUBLE COMPLEX array given to a DOUBLE PRECISION dummy (type
C     punning, as in legacy FFT codes; pun_set.f is compiled apart).
C     SETRE(Z, J) writes the J-th real of Z: the real or the imaginary
C     part of Z((J+1)/2).  Iteration J reads Z(J), whose halves are
C     written by iterations 2J-1 and 2J: the loop is not parallel,
C     though Z(J) and "element J of the dummy" look alike.
      program pun
      implicit none
      integer n, j
      parameter (n = 8)
      double complex z(2*n)
      double precision r(n)
      do j = 1, 2 * n
         z(j) = (0.0d0, 0.0d0)
      end do
      do j = 1, n
         call setre(z, j)
         r(j) = dble(z(j)) + dimag(z(j))
      end do
      print *, r
      end
