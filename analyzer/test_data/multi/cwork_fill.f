C     FILL of cwork_main.f: writes Y(1:N), never reads it.
      SUBROUTINE FILL(N, X, A, Y)
      INTEGER N, I
      DOUBLE PRECISION X, A, Y(N)
      DO 10 I = 1, N
         X = MOD(X * 5.0D0 + A, 65536.0D0)
         Y(I) = X / 65536.0D0
   10 CONTINUE
      END
