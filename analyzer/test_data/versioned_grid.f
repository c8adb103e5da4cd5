C     A work array whose coverage holds only on a large enough grid:
C     each iteration of J writes T(0:N-1) and then updates T(2), which
C     it wrote first only when N >= 3; on a smaller grid T(2) carries
C     a value from one iteration to the next. N comes from a value the
C     analysis cannot follow (MOD), so J is sequential, and parallel
C     with T private when N .GE. 3 holds where the loop starts.
C     The loop over K updates W(N) past the part of W it writes: every
C     iteration changes that element, whatever N is (no test helps).
      PROGRAM VGRID
      INTEGER N
      COMMON /GRID/ N
      DOUBLE PRECISION F(0:99,0:99)
      INTEGER NX0
      NX0 = MOD(17 * 3, 7) + 9
      N = NX0
      CALL FILL(F)
      PRINT *, F(0,98), F(3,7), F(N-2,50)
      END

      SUBROUTINE FILL(F)
      INTEGER N
      COMMON /GRID/ N
      DOUBLE PRECISION F(0:99,0:99), T(0:99), W(0:99)
      INTEGER I, J, K
C EXPECT: parallel
      DO 10 J = 0, 99
C EXPECT: parallel
         DO 5 I = 0, 99
            F(I,J) = 0
    5    CONTINUE
         T(J) = 0
         W(J) = 0
   10 CONTINUE
C EXPECT: sequential blockers(dep) when[N .GE. 3] vprivate(t)
      DO J = 1, 98
C EXPECT: parallel
         DO I = 0, N - 1
            T(I) = DBLE(I * J) + 1.0D0 / (I + 1)
         END DO
         T(2) = T(2) + 1
         F(0,J) = T(2)
C EXPECT: parallel
         DO I = 1, N - 2
            F(I,J) = T(I-1) + T(I+1)
         END DO
      END DO
C EXPECT: sequential blockers(dep)
      DO K = 1, 98
C EXPECT: parallel
         DO I = 0, N - 1
            W(I) = DBLE(I * K)
         END DO
         W(N) = W(N) * 0.5D0 + K
C EXPECT: parallel
         DO I = 0, N - 1
            F(I,K) = F(I,K) + W(I) + W(N)
         END DO
      END DO
      END
