      PROGRAM PLANEW
C     A loop over the plane K = 6 of C (a constant subscript in the
C     distributed third dimension) also writes B, aligned with C(I,J,*):
C     B has a copy on every process along the third dimension, so the
C     loop cannot run only where plane 6 lives (the fuzzer, seed 4007:
C     the other copies of B went stale). The hint asks for the
C     distribution of all three dimensions.
      INTEGER N
      PARAMETER (N = 8)
C$SPF DISTRIBUTE C(BLOCK,BLOCK,BLOCK)
      INTEGER B(N, N), C(N, N, N), I, J, K, IT, S
C EXPECT: sequential blockers(dep)
      DO K = 1, N
C EXPECT: parallel
        DO J = 1, N
C EXPECT: parallel
          DO I = 1, N
            C(I, J, K) = MOD(I * J + K * 3, 71)
            B(I, J) = I + J
          END DO
        END DO
      END DO
C EXPECT: sequential blockers(dep)
      DO IT = 1, 3
C EXPECT: parallel
        DO J = 2, 5
C EXPECT: parallel
          DO I = 2, 5
            B(I, J) = MOD(2 * B(I, J) + C(I, J, 1), 1000)
            C(I, J, 6) = MOD(C(I, J, 6) + 1, 1000)
          END DO
        END DO
      END DO
      S = 0
C EXPECT: sequential blockers(scalar)
      DO K = 1, N
C EXPECT: sequential blockers(scalar)
        DO J = 1, N
C EXPECT: sequential blockers(scalar)
          DO I = 1, N
            S = MOD(S * 31 + C(I, J, K) + B(I, J) * K, 1000003)
          END DO
        END DO
      END DO
      PRINT *, S
      END
