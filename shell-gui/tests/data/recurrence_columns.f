C     A field filled from a random-number seed carried between columns
C     (each column starts from the seed the previous one left, NPB MG
C     style), then smoothed many times.
      PROGRAM SEEDS
      INTEGER N, M
      PARAMETER (N = 300, M = 400)
      DOUBLE PRECISION U(N, M), V(N, M)
      INTEGER*8 X0, X1, Y0, A1, A2, P, S
      INTEGER I, J, K
      A1 = 16807
      A2 = 48271
      P = 2147483647
      X0 = 20261128
      DO J = 1, M
         X1 = X0
         DO I = 1, N
            X1 = MOD(X1 * A1, P)
            U(I, J) = DBLE(X1) / DBLE(P)
         END DO
         X0 = MOD(X0 * A2, P)
      END DO
C     the seed updated first, the column reading the new one
      Y0 = 7
      DO J = 1, M
         Y0 = MOD(Y0 * A1, P)
         DO I = 1, N
            U(I, J) = U(I, J) + DBLE(MOD(Y0 + I, 97)) / 97
         END DO
      END DO
      DO K = 1, 50
         DO J = 2, M - 1
            DO I = 2, N - 1
               V(I, J) = 0.25D0 * (U(I-1, J) + U(I+1, J)
     >                 + U(I, J-1) + U(I, J+1))
            END DO
         END DO
         DO J = 2, M - 1
            DO I = 2, N - 1
               U(I, J) = V(I, J)
            END DO
         END DO
      END DO
      S = 0
      DO J = 1, M
         DO I = 1, N
            S = S + INT(U(I, J) * 1.0D6, 8) * MOD(I + 3 * J, 7)
         END DO
      END DO
      PRINT *, 'CHECKSUM', S, U(7, 9), U(N - 1, M / 2)
      PRINT *, 'SEEDS AFTER', X0, Y0
      END
