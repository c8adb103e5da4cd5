C     A seed X0 carried between the columns of U by six updates, and
C     little work beside them (N = 2 rows): the loop over columns is
C     parallel once X0 is computed ahead, but that sequential copy of
C     the updates runs whole on every process, so dividing the columns
C     saves less than it costs. The test makes N = 64 and one update
C     of it: then dividing them pays.
      PROGRAM AHEAD
      INTEGER N, M
      PARAMETER (N = 2, M = 4000)
      INTEGER*8 X0, P
      DOUBLE PRECISION U(N, M), S
      INTEGER I, J
      P = 2147483647
      X0 = 4711
      DO J = 1, M
         X0 = MOD(X0 * 48271 + 11, P)
         X0 = MOD(X0 * 16807 + 13, P)
         X0 = MOD(X0 * 48271 + 17, P)
         X0 = MOD(X0 * 16807 + 19, P)
         X0 = MOD(X0 * 48271 + 23, P)
         X0 = MOD(X0 * 16807 + 29, P)
         DO I = 1, N
            U(I, J) = DBLE(X0) / DBLE(P) + I
         END DO
      END DO
      S = 0
      DO J = 1, M
         DO I = 1, N
            S = S + U(I, J)
         END DO
      END DO
      PRINT *, S
      END
