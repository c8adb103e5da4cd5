C     complex_rows.f's generator, in a file of its own: the program gives it a
C     DOUBLE COMPLEX row for its DOUBLE PRECISION Y, which gfortran refuses
C     within one file.
      SUBROUTINE FILL(N, X, A, Y)
      INTEGER N, I
      DOUBLE PRECISION X, A, Y(N)
      DO 10 I = 1, N
         X = MOD(X * 5.0D0 + A, 65536.0D0)
         Y(I) = X / 65536.0D0
   10 CONTINUE
      END
