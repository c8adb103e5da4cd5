C     Batches of pseudo-random numbers (NPB EP's shape) next to a stencil on a
C     grid: the grid is distributed, and the batch loop, which touches no
C     distributed array, divides its batches over a template of its own.
      PROGRAM BATCH
      IMPLICIT NONE
      INTEGER NB, NK, NQ
      PARAMETER (NB = 96, NK = 2000, NQ = 10)
      INTEGER NG
      PARAMETER (NG = 300)
      DOUBLE PRECISION X(2*NK), Q(0:NQ-1), SX, SY, T, GC
      DOUBLE PRECISION G(NG, NG), H(NG, NG), R
      INTEGER NP, K, I, L, J, IT
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
      DO 210 J = 1, NG
      DO 210 I = 1, NG
         G(I, J) = DBLE(MOD(I * 7 + J * 13, 17))
         H(I, J) = 0.D0
  210 CONTINUE
      DO 240 IT = 1, 20
         DO 220 J = 2, NG - 1
         DO 220 I = 2, NG - 1
            H(I,J) = (G(I-1,J) + G(I+1,J) + G(I,J-1) + G(I,J+1)) / 4
  220    CONTINUE
         DO 230 J = 2, NG - 1
         DO 230 I = 2, NG - 1
            G(I, J) = H(I, J)
  230    CONTINUE
  240 CONTINUE
      R = 0.D0
      DO 250 J = 1, NG
      DO 250 I = 1, NG
         R = R + G(I, J) * DBLE(I + J)
  250 CONTINUE
      WRITE (*, '(A, F20.6)') ' GRID', R
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
