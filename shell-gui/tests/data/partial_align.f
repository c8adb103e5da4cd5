C     U is indexed with R in two kinds of nest: nests over K and J run
C     often, whose loops over I sit below a work array's loop (I is no
C     nest variable there), and a sweep over all three with a
C     dependence along I. U goes with R on every dimension the nests
C     name, I included (the nests over K and J agree with the sweep on
C     J and K), so the sweep can be pipelined where I is divided.
      PROGRAM PALIGN
      DOUBLE PRECISION U(40,30,20), R(40,30,20), W(40), S
      INTEGER I, J, K, IT
      DO K = 1, 20
         DO J = 1, 30
            DO I = 1, 40
               U(I,J,K) = 1.0D0 / (I + J + K)
               R(I,J,K) = MOD(I + 2*J + 3*K, 7) * 0.25D0
            END DO
         END DO
      END DO
      DO IT = 1, 200
         DO K = 1, 20
            DO J = 1, 30
               DO I = 1, 40
                  W(I) = U(I,J,K) * 2 + R(I,J,K) * 0.001D0
               END DO
               DO I = 2, 39
                  U(I,J,K) = U(I,J,K) * 0.25D0 + (W(I-1) + W(I+1)) * 0.125D0
               END DO
            END DO
         END DO
      END DO
      DO K = 1, 20
         DO J = 1, 30
            DO I = 2, 40
               R(I,J,K) = R(I,J,K) * U(I,J,K) + 0.5D0 * R(I-1,J,K)
            END DO
         END DO
      END DO
      S = 0
      DO K = 1, 20
         DO J = 1, 30
            DO I = 1, 40
               S = S + R(I,J,K) * MOD(I + J + K, 3) + U(I,J,K)
            END DO
         END DO
      END DO
      PRINT '(F20.10)', S
      END
