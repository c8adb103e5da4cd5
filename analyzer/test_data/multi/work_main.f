C     Work arrays filled by FILL (work_fill.f, compiled apart: gfortran
C     would refuse the type mismatch in one file).  Given a DOUBLE
C     PRECISION array, the call defines X(1:2*NK) and X is private to
C     loop J; given a DOUBLE COMPLEX array, FILL's 2*NK reals are NK
C     complex elements, not Z(1:2*NK): Z is not private.
      program wmain
      implicit none
      integer n, nk, i, j
      parameter (n = 8, nk = 6)
      double precision x(2*nk), s
      double complex z(2*nk)
      s = 0.0d0
      do i = 1, 2 * nk
         z(i) = (0.0d0, 0.0d0)
      end do
      do j = 1, n
         call fill(2 * nk, dble(j), x)
         do i = 1, 2 * nk
            s = s + x(i)
         end do
      end do
      do j = 1, n
         call fill(2 * nk, dble(j), z)
         do i = 1, 2 * nk
            s = s + dble(z(i))
         end do
      end do
      print *, s
      end
