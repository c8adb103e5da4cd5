C     Array reductions (issue 17): an array every statement of the loop
C     updates element-wise with one operator, and nothing else reads.
C     NPB's error norm (rms(m) over k, j, i), EP's histogram (q(l) with
C     l computed in the iteration), a max over columns.  Loop M of the
C     norm updates a different element in each iteration: no reduction
C     there.  Reading the array elsewhere in the loop, mixing operators,
C     or updating it through a call is not a reduction.
      program redarr
      implicit none
      integer n, i, j, k, m, l
      parameter (n = 6)
      double precision u(5, n, n, n), rms(5), q(0:9), t, x
      double precision cmax(n), w(n)
C EXPECT: parallel
      do k = 1, n
C EXPECT: parallel
         do j = 1, n
C EXPECT: parallel
            do i = 1, n
C EXPECT: parallel
               do m = 1, 5
                  u(m, i, j, k) = dble(m*i - j + k) / 7.0d0
               end do
            end do
         end do
      end do
C EXPECT: parallel
      do m = 1, 5
         rms(m) = 0.0d0
      end do
C EXPECT: parallel reduction(sum:rms)
      do k = 1, n
C EXPECT: parallel reduction(sum:rms)
         do j = 1, n
C EXPECT: parallel reduction(sum:rms)
            do i = 1, n
C EXPECT: parallel
               do m = 1, 5
                  rms(m) = rms(m) + u(m, i, j, k)**2
               end do
            end do
         end do
      end do
C EXPECT: parallel
      do l = 0, 9
         q(l) = 0.0d0
      end do
C EXPECT: parallel private(l,t,x) reduction(sum:q)
      do k = 1, n
C EXPECT: parallel private(l,t,x) reduction(sum:q)
         do i = 1, n
            x = u(1, i, 2, k)
            t = abs(x) * 3.0d0
            l = int(t)
            if (l .le. 9) then
               q(l) = q(l) + 1.0d0
            end if
         end do
      end do
C EXPECT: parallel
      do i = 1, n
         cmax(i) = -1.0d30
      end do
C EXPECT: parallel private(l) reduction(max:cmax)
      do k = 1, n
C EXPECT: parallel private(l) reduction(max:cmax)
         do j = 1, n
            l = mod(j + k, n) + 1
            cmax(l) = max(cmax(l), u(2, j, 3, k))
         end do
      end do
C     read elsewhere in the loop: the running value matters
C EXPECT: sequential blockers(dep)
      do k = 1, n
         l = mod(k, 3)
         q(l) = q(l) + 1.0d0
         w(k) = q(l)
      end do
C     two operators on one array
C EXPECT: sequential blockers(dep)
      do k = 1, n
         l = mod(k, 3)
         q(l) = q(l) + 1.0d0
         q(l + 1) = q(l + 1) * 2.0d0
      end do
C     updated through a call
C EXPECT: sequential blockers(call)
      do k = 1, n
         call bump(q, mod(k, 4))
      end do
      print *, rms, q, cmax, w
      end

      subroutine bump(q, l)
      integer l
      double precision q(0:9)
      q(l) = q(l) + 1.0d0
      end
