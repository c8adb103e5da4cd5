      PROGRAM PLANES
C     Parallel loops inside a sequential loop over the planes K of a
C     3-D array (a work array W, written for a symbolic range and read
C     at W(3) before that, the value of the iteration before, keeps K
C     sequential): distributed along K, each
C     execution of the inner nest runs where plane K lives (ON with K
C     not a loop variable; the hint below asks for that distribution).
C     Plane 1 is set apart with a constant subscript; a sum at the end.
      INTEGER N, NK
      PARAMETER (N = 14, NK = 9)
      DOUBLE PRECISION U(N, N, NK), W(0:N+1), S
C$SPF DISTRIBUTE U(*,*,BLOCK)
      INTEGER I, J, K, G
      DATA W /16 * 0.5D0/
      CALL SETG(G, N)
C EXPECT: parallel
      DO K = 1, NK
C EXPECT: parallel
        DO J = 1, N
C EXPECT: parallel
          DO I = 1, N
            U(I, J, K) = MOD(I * J + K, 11)
          END DO
        END DO
      END DO
C EXPECT: sequential blockers(dep)
      DO K = 2, NK
C EXPECT: sequential blockers(dep)
        DO J = 1, N
          U(1, J, K) = U(1, J, K) + W(3)
C EXPECT: parallel
          DO I = 0, G + 1
            W(I) = DBLE(I + J) / K
          END DO
C EXPECT: parallel
          DO I = 2, G - 1
            U(I, J, K) = U(I, J, K) + W(I - 1) - W(I + 1)
          END DO
        END DO
      END DO
C EXPECT: parallel
      DO J = 1, N
C EXPECT: parallel
        DO I = 1, N
          U(I, J, 1) = -U(I, J, 1)
        END DO
      END DO
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO K = 1, NK
C EXPECT: parallel reduction(sum:s)
        DO J = 1, N
C EXPECT: parallel reduction(sum:s)
          DO I = 1, N
            S = S + U(I, J, K) * MOD(I + 2 * J + 3 * K, 5)
          END DO
        END DO
      END DO
      PRINT *, S
      END

      SUBROUTINE SETG(G, N)
      INTEGER G, N
      G = N
      END
