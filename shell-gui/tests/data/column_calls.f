C Elements of distributed arrays given to procedures. FILL and SMOOTH get a column A(1,J) in
C loops over columns: in a variant dividing the columns each process calls them on its own.
C SWEEP's loop over I calls ADDV on C(1,I,J) along J, a recurrence: where J is divided the
C nest runs on every process over a full copy of C (fetched before it, each process keeping
C its own part after), where I is divided it is a parallel loop.
      PROGRAM COLCAL
      INTEGER M, N
      PARAMETER (M = 60, N = 80)
      DOUBLE PRECISION A(M,N), B(M,N), C(5,M,N), S, T
      COMMON /CC/ C
      INTEGER I, J, K, IT
      DO J = 1, N
         CALL FILL(A(1,J), M, J)
      END DO
      DO J = 1, N
         DO I = 1, M
            DO K = 1, 5
               C(K,I,J) = MOD(K * I + J, 7) * 0.5D0
            END DO
         END DO
      END DO
      DO IT = 1, 3
         DO J = 2, N-1
            DO I = 1, M
               B(I,J) = (A(I,J-1) + A(I,J+1)) * 0.5D0
            END DO
         END DO
         DO J = 2, N-1
            CALL SMOOTH(B(1,J), A(1,J), M)
         END DO
         CALL SWEEP
      END DO
      S = 0
      T = 0
      DO J = 1, N
         DO I = 1, M
            S = S + A(I,J) * I
            T = T + C(1,I,J) + C(5,I,J) * J
         END DO
      END DO
      PRINT '(2F24.6)', S, T
      END

      SUBROUTINE SWEEP
      INTEGER M, N, I, J
      PARAMETER (M = 60, N = 80)
      DOUBLE PRECISION C(5,M,N)
      COMMON /CC/ C
      DO I = 1, M
         DO J = 2, N
            CALL ADDV(C(1,I,J), C(1,I,J-1))
            C(1,I,J) = C(1,I,J) * 0.5D0
         END DO
      END DO
      END

      SUBROUTINE ADDV(X, Y)
      DOUBLE PRECISION X(5), Y(5)
      INTEGER K
      DO K = 1, 5
         X(K) = X(K) + 0.25D0 * Y(K)
      END DO
      END

      SUBROUTINE FILL(X, M, J)
      INTEGER M, J, I
      DOUBLE PRECISION X(M)
      DO I = 1, M
         X(I) = MOD(I * J, 17) * 0.25D0
      END DO
      END

      SUBROUTINE SMOOTH(X, Y, M)
      INTEGER M, I
      DOUBLE PRECISION X(M), Y(M)
      Y(1) = X(1)
      Y(M) = X(M)
      DO I = 2, M-1
         Y(I) = (X(I-1) + 2 * X(I) + X(I+1)) * 0.25D0
      END DO
      END
