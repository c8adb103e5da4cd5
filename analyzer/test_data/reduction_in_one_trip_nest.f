      PROGRAM HIST1
C     A histogram summed in a nest whose outer loop runs once (K = 3, 3):
C     that loop carries no dependence and lists no reduction, the loops
C     inside it do, and the nest's PARALLEL directive must name it (the
C     fuzzer, seed 3007: the sum kept one process's part only).
      INTEGER N1, N2, N3
      PARAMETER (N1 = 12, N2 = 10, N3 = 6)
      INTEGER C(N1, N2, N3), H(0:6), I, J, K, L
C EXPECT: parallel
      DO K = 1, N3
C EXPECT: parallel
        DO J = 1, N2
C EXPECT: parallel
          DO I = 1, N1
            C(I, J, K) = MOD(I * J + K * 2, 71)
          END DO
        END DO
      END DO
C EXPECT: parallel
      DO L = 0, 6
        H(L) = 0
      END DO
C EXPECT: parallel private(l)
      DO K = 3, 3
C EXPECT: parallel private(l) reduction(sum:h)
        DO J = 3, 8
C EXPECT: parallel private(l) reduction(sum:h)
          DO I = 3, 10
            L = MOD(I * 5 + K, 7)
            H(L) = H(L) + C(I - 2, J + 1, K + 2)
          END DO
        END DO
      END DO
      PRINT *, H
      END
