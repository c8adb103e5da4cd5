C     Work arrays defined by a call (issue 17): a procedure that surely
C     writes a section of its dummy array before reading any of it
C     (NPB's EXACT_SOLUTION filling DTEMP(1:5), VRANLC filling Y(1:N))
C     defines the caller's array; a loop around the call may make it
C     private.  Passed whole, or as the start of a column (PFACE(1,I)).
C     Not when the callee reads the dummy's old values first, writes
C     only some elements (a condition), or leaves early.
      program wcall
      implicit none
      integer n, i, j, m, nk
      parameter (n = 8, nk = 6)
      double precision u(5, n, n), t(5), face(5, 3), x(2*nk), s
      double precision r(n), w(5)
      s = 0.0d0
C EXPECT: parallel
      do m = 1, 5
         w(m) = 0.0d0
      end do
C EXPECT: parallel private(t)
      do j = 1, n
C EXPECT: parallel private(t)
         do i = 1, n
            call exact(i, j, t)
C EXPECT: parallel
            do m = 1, 5
               u(m, i, j) = t(m) * 2.0d0
            end do
         end do
      end do
C     the start of a column: FACE(1:5, I) is written by each call
C EXPECT: parallel private(face)
      do j = 1, n
C EXPECT: parallel
         do i = 1, 3
            call exact(i, j, face(1, i))
         end do
C EXPECT: parallel
         do m = 1, 5
            u(m, 1, j) = face(m, 1) + face(m, 2) - face(m, 3)
         end do
      end do
C     a length passed as an argument: X(1:2*NK)
C EXPECT: parallel private(x) reduction(sum:s)
      do j = 1, n
         call fill(2 * nk, dble(j), x)
C EXPECT: parallel reduction(sum:s)
         do i = 1, 2 * nk
            s = s + x(i)
         end do
      end do
C     the callee adds to what is there: the old values are used
C EXPECT: sequential blockers(call)
      do j = 1, n
         call addto(j, w)
         r(j) = w(1)
      end do
C     the callee writes W only under a condition
C EXPECT: sequential blockers(call)
      do j = 1, n
         call maybe(j, w)
         r(j) = w(2)
      end do
      print *, s, u(3, 4, 5), u(2, 1, 7), r(3)
      end

      subroutine exact(i, j, d)
      integer i, j, m
      double precision d(5)
      do m = 1, 5
         d(m) = dble(m * i - j) / 3.0d0
      end do
      return
      end

      subroutine fill(k, a, y)
      integer k, i
      double precision a, y(k)
      do i = 1, k
         y(i) = a * i
      end do
      end

      subroutine addto(j, v)
      integer j, m
      double precision v(5)
      do m = 1, 5
         v(m) = v(m) + j
      end do
      end

      subroutine maybe(j, v)
      integer j, m
      double precision v(5)
      if (mod(j, 2) .eq. 0) then
         do m = 1, 5
            v(m) = j
         end do
      end if
      end
