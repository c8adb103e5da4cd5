C     A procedure's COMMON scratch array (NPB FT's SCR in SWARZTRAUBER):
C     BFLY's stages write SCR(1:N) (LI * LJ stays N = 2**L, which the
C     analysis cannot show) and copy it back into its column. L comes
C     from logarithms in DOUBLE PRECISION, a value the analysis does not
C     compute (with it, `concrete` would execute BFLY's stages and see
C     SCR written first: scratch_values.f). The loop
C     over K is sequential with a note on how to assert SCR private;
C     with `sapfor refine private` it is parallel, and the generated
C     program prints what this one prints.
      PROGRAM CSCR
      INTEGER N, M
      PARAMETER (N = 16, M = 24)
      DOUBLE PRECISION X(N, M), S, SCR(64)
      COMMON /WRK/ SCR
      INTEGER I, K, LG
      LG = NINT(LOG(DBLE(N)) / LOG(2.0D0))
      DO 10 K = 1, M
         DO 10 I = 1, N
            X(I, K) = I * K + MOD(I * I, 7)
   10 CONTINUE
      DO 20 K = 1, M
         CALL BFLY(X(1, K), N, LG)
   20 CONTINUE
      S = 0
      DO 30 K = 1, M
         DO 30 I = 1, N
            S = S + X(I, K) * I
   30 CONTINUE
      PRINT *, S
      END

      SUBROUTINE BFLY(Y, N, L)
      INTEGER N, L, I, K, LI, LJ, LK, ST
      DOUBLE PRECISION Y(N), SCR(64), U, V
      COMMON /WRK/ SCR
      LI = N
      LJ = 1
      DO 20 ST = 1, L
         LK = LJ
         LJ = 2 * LK
         LI = LI / 2
         DO 10 I = 0, LI - 1
            DO 10 K = 1, LK
               U = Y(I * LK + K)
               V = Y(I * LK + K + N / 2)
               SCR(I * LJ + K) = U + V
               SCR(I * LJ + LK + K) = U - V * ST
   10    CONTINUE
         DO 20 I = 1, N
            Y(I) = SCR(I)
   20 CONTINUE
      END
