C     NPB EP's shape: each iteration finds its seed in a loop that may
C     leave early (GOTO 130), fills a work array in COMMON by a call
C     that surely writes X(1:2*NK) and touches no COMMON block, and
C     tallies a histogram.  T1 is set before the seed loop and used
C     after the label: surely assigned on both ways to 130, so private.
C     When the label is also reached before a scalar is set, it is not.
      program epl
      implicit none
      integer np, nk, k, kk, i, ik, l
      parameter (np = 8, nk = 16)
      double precision x(2*nk), q(0:9), t1, t2, t3, t4, s, sx
      common /storage/ x, q
      s = 27.d0
      sx = 0.d0
C EXPECT: parallel
      do l = 0, 9
         q(l) = 0.d0
      end do
C EXPECT: parallel private(ik,kk,l,t1,t2,t3,x) reduction(sum:q,sum:sx)
      do 150 k = 1, np
         kk = k - 1
         t1 = s
         t2 = 5.d0
C EXPECT: sequential blockers(exit,scalar)
         do 120 i = 1, 100
            ik = kk / 2
            if (2 * ik .ne. kk) t1 = mod(t1 * t2, 1000.d0)
            if (ik .eq. 0) goto 130
            t2 = mod(t2 * t2 + 1.d0, 1000.d0)
            kk = ik
 120     continue
 130     continue
         call fill(2 * nk, t1, x)
C EXPECT: parallel private(l,t3) reduction(sum:q,sum:sx)
         do 140 i = 1, nk
            t3 = x(2*i-1) + x(2*i)
            l = mod(int(t3), 10)
            q(l) = q(l) + 1.d0
            sx = sx + t3
 140     continue
 150  continue
      print *, sx, q
C     T4 is read after label 230, which a jump reaches before T4 is set
      t4 = 0.d0
C EXPECT: sequential blockers(scalar)
      do 250 k = 1, np
         if (k .gt. 4) goto 230
         t4 = k
 230     continue
         sx = sx + t4
 250  continue
      print *, sx
      end

      subroutine fill(n, seed, y)
      integer n, i
      double precision seed, y(n)
C EXPECT: sequential blockers(scalar)
      do i = 1, n
         seed = mod(seed * 13.d0 + 7.d0, 101.d0)
         y(i) = seed / 101.d0
      end do
      end
