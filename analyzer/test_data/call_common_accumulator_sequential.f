C     ACCUM adds its argument to a COMMON scalar (an accumulator
C     hidden in the callee) and counts the calls: every iteration reads
C     and writes TOTAL and COUNT through the call: blocker call.
C     BUMP(I) updates W(I) of a COMMON array from the mirrored element
C     W(N+1-I), which another iteration writes: a conflict between
C     iterations that happens inside the callee is blocker call.
      PROGRAM CALACC
      PARAMETER (N = 10)
      REAL A(N)
      COMMON /ACC/ TOTAL, COUNT
      COMMON /WORK/ W(N)
      INTEGER I
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I) * 1.5
         W(I) = REAL(I)
   10 CONTINUE
      TOTAL = 0.0
      COUNT = 0.0
C EXPECT: sequential blockers(call)
      DO 20 I = 1, N
         CALL ACCUM(A(I))
   20 CONTINUE
C EXPECT: sequential blockers(call)
      DO 30 I = 1, N
         CALL BUMP(I)
   30 CONTINUE
      WRITE (*, 100) TOTAL, COUNT, W(N)
  100 FORMAT (' TOTAL =', F8.2, '  COUNT =', F5.1, '  W(N) =', F8.2)
      END

      SUBROUTINE ACCUM(V)
      REAL V
      COMMON /ACC/ TOTAL, COUNT
      TOTAL = TOTAL + V
      COUNT = COUNT + 1.0
      END

      SUBROUTINE BUMP(I)
      PARAMETER (N = 10)
      COMMON /WORK/ W(N)
      INTEGER I
      W(I) = W(I) + 0.5 * W(N + 1 - I)
      END
