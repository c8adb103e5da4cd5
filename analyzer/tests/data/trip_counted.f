C     Passes of a Stockham-style FFT (NPB FT's SWARZTRAUBER): over the
C     passes L the loop over I runs LI = 32, 16, ..., 1 times and the
C     loop over K inside it LK = 1, 2, ..., 32 times, LI * LK = 32 in
C     every pass. K indexes the 64 columns of X and the 256 of the
C     COMMON work array S, a bound 21 times what it runs. The copy back runs in the last
C     pass only (IF (L .EQ. M)), the other copy in the other five.
      PROGRAM TRIPC
      INTEGER N, M
      PARAMETER (N = 64, M = 6)
      DOUBLE PRECISION X(4, N)
      INTEGER I, J
      DO 10 I = 1, N
         DO 10 J = 1, 4
            X(J, I) = I + J
   10 CONTINUE
      DO 20 I = 1, 3
         CALL PASSES(X, 4, N, M)
   20 CONTINUE
      PRINT *, X(1, 1), X(4, N)
      END

      SUBROUTINE PASSES(X, VL, N, M)
      INTEGER VL, N, M, L, I, K, J, LI, LJ, LK, I11, I21
      DOUBLE PRECISION X(VL, N), S(8, 256)
      COMMON /SCR/ S
      LI = N
      LJ = 1
      DO 30 L = 1, M
         LK = LJ
         LJ = 2 * LK
         LI = LI / 2
         DO 10 I = 0, LI - 1
            I11 = I * LK + 1
            I21 = I * LJ + 1
            DO 10 K = 0, LK - 1
               DO 10 J = 1, VL
                  S(J, I21 + K) = X(J, I11 + K) + X(J, I11 + K + N/2)
                  S(J, I21+LK+K) = X(J, I11 + K) - X(J, I11 + K + N/2)
   10    CONTINUE
         IF (L .EQ. M) THEN
            DO 20 K = 1, N
               DO 20 J = 1, VL
                  X(J, K) = S(J, K) * 0.5D0
   20       CONTINUE
         ELSE
            DO 25 K = 1, N
               DO 25 J = 1, VL
                  X(J, K) = S(J, K)
   25       CONTINUE
         END IF
   30 CONTINUE
      END
