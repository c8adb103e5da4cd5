C     Rows of a field filled by a procedure from a seed that a function
C     advances after each row (NPB MG's ZRAN3 style): each call reaches
C     Z(2:D1+1,I2), inside its column when D1 + 1 <= N1, a test the
C     program makes where the loop starts. D1 comes from rows.dat.
      PROGRAM ROWS
      INTEGER N1, N2
      PARAMETER (N1 = 64, N2 = 900)
      DOUBLE PRECISION Z(N1, N2), SEED, S
      INTEGER D1, I, J, K
      OPEN (1, FILE = 'rows.dat', STATUS = 'OLD')
      READ (1, *) D1
      CLOSE (1)
      SEED = 314159265.0D0
      DO K = 1, 3
         CALL FILL(Z, N1, N2, D1, SEED)
      END DO
      S = 0
      DO J = 1, N2
         DO I = 1, N1
            S = S + NINT(Z(I, J) * 1.0D4) * MOD(I + J, 7)
         END DO
      END DO
      PRINT *, 'SUM', S, 'SEED', SEED
      PRINT *, Z(2, 1), Z(D1 + 1, N2), Z(N1, 5)
      END

      SUBROUTINE FILL(Z, N1, N2, D1, SEED)
      INTEGER N1, N2, D1, I2, I1
      DOUBLE PRECISION Z(N1, N2), SEED, X0, X1, R, NEXT
      DO I2 = 1, N2
         DO I1 = 1, N1
            Z(I1, I2) = 0
         END DO
      END DO
      X0 = SEED
      DO I2 = 1, N2
         X1 = X0
         CALL ROW(D1, X1, Z(2, I2))
         R = NEXT(X0)
      END DO
      SEED = X0
      END

      SUBROUTINE ROW(N, X, Y)
      INTEGER N, I
      DOUBLE PRECISION X, Y(*), NEXT
      DO I = 1, N
         Y(I) = NEXT(X) / 2147483647.0D0
      END DO
      END

      DOUBLE PRECISION FUNCTION NEXT(X)
      DOUBLE PRECISION X
      X = MOD(X * 16807.0D0, 2147483647.0D0)
      NEXT = X
      END
