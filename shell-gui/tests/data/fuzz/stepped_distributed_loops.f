C     Found by the fuzzer (seed 112: refused). Parallel loops whose step is not 1 over a
C     distributed dimension: up and down, with neighbour reads (shadow edges), a reduction
C     and a 2-D nest. Each process runs exactly the iterations of the sequential loop that
C     fall in its block; the converter used to refuse them.
      PROGRAM STEPS
      INTEGER N, M
      PARAMETER (N = 37, M = 9)
      INTEGER A(N), B(N), C(N, M), D(N, M)
      INTEGER I, J, S, CS
      DO I = 1, N
        A(I) = MOD(I * 7, 31)
        B(I) = 0
      END DO
      DO J = 1, M
        DO I = 1, N
          C(I, J) = MOD(I * J, 17)
          D(I, J) = 0
        END DO
      END DO
      DO I = 2, N - 1, 2
        B(I) = A(I - 1) + A(I + 1)
      END DO
      DO I = N - 1, 3, -3
        B(I) = B(I) + A(I) * 2
      END DO
      DO I = 35, 4, -1
        B(I) = B(I) + I
      END DO
      S = 0
      DO I = 5, N, 4
        S = S + B(I) * I
      END DO
      DO J = 2, M - 1
        DO I = N - 2, 2, -2
          D(I, J) = C(I - 1, J) + C(I + 1, J + 1)
        END DO
      END DO
      CS = 0
      DO I = 1, N
        CS = MOD(CS * 31 + B(I), 1000003)
      END DO
      PRINT *, 'B', CS, 'S', S
      CS = 0
      DO J = 1, M
        DO I = 1, N
          CS = MOD(CS * 31 + D(I, J), 1000003)
        END DO
      END DO
      PRINT *, 'D', CS
      END
