C     A parallel loop over K calls ROW, whose own loop over I is long
C     enough for threads too: ROW's loop runs inside an iteration of
C     the K loop, so only the K loop carries a PARALLEL directive.
      PROGRAM NEST
      DOUBLE PRECISION A(20000,16), S
      INTEGER K, I
      DO K = 1, 16
         CALL ROW(A(1,K), K)
         DO I = 1, 20000
            A(I,K) = A(I,K) * 0.5D0 + SQRT(DBLE(I + K)) * 0.25D0
         END DO
      END DO
      S = 0
      DO K = 1, 16
         DO I = 1, 20000, 997
            S = S + A(I,K)
         END DO
      END DO
      PRINT *, S, A(1,1), A(20000,16)
      END

      SUBROUTINE ROW(X, K)
      INTEGER K, I, J
      DOUBLE PRECISION X(20000), T
      DO I = 1, 20000
         T = 0
         DO J = 1, 50
            T = T + SQRT(DBLE(I * K + J))
         END DO
         X(I) = T
      END DO
      END
