C     Batches of pseudo-random numbers, NPB EP's shape: no array is worth
C     distributing, but the batch loop is parallel (a work array in COMMON
C     filled by a call each batch is private; a histogram and two sums are
C     reductions). Its bound is a scalar set once from a PARAMETER.
      PROGRAM BATCH
      IMPLICIT NONE
      INTEGER NB, NK, NQ
      PARAMETER (NB = 96, NK = 2000, NQ = 10)
      DOUBLE PRECISION X(2*NK), Q(0:NQ-1), SX, SY, T, GC
      INTEGER NP, K, I, L
      COMMON /WORK/ X, Q
      NP = NB
      DO 10 I = 0, NQ - 1
         Q(I) = 0.D0
   10 CONTINUE
      SX = 0.D0
      SY = 0.D0
      DO 150 K = 1, NP
         CALL GEN(K, X, NK)
         DO 140 I = 1, NK
            T = X(2*I-1) + X(2*I)
            IF (MOD(INT(T), 3) .NE. 0) THEN
               L = MOD(INT(T), NQ)
               Q(L) = Q(L) + 1.D0
               SX = SX + X(2*I-1)
               SY = SY + X(2*I)
            ENDIF
  140    CONTINUE
  150 CONTINUE
      GC = 0.D0
      DO 160 I = 0, NQ - 1
         GC = GC + Q(I)
  160 CONTINUE
      WRITE (*, '(A, 3F16.1)') ' SUMS', SX, SY, GC
      WRITE (*, '(A, 10F9.1)') ' Q', (Q(I), I = 0, NQ - 1)
      END

      SUBROUTINE GEN(K, X, NK)
      IMPLICIT NONE
      INTEGER K, NK, I
      DOUBLE PRECISION X(2*NK)
      DO 10 I = 1, 2 * NK
         X(I) = DBLE(MOD(K * 7919 + I * 104729 + K * I * 31, 97))
   10 CONTINUE
      END
