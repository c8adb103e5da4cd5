C A replicated array written by a procedure called in a divided loop: FILL writes
C column J of B on the process running iteration J; every copy of B must be whole
C before the last loop reads it (each process its own rows). B is initialized by DATA,
C which keeps it replicated (its columns given to FILL would let it be distributed).
      PROGRAM REP
      INTEGER M, N
      PARAMETER (M = 300, N = 400)
      DOUBLE PRECISION A(M,N), B(M,N), S
      INTEGER I, J, IT
      DATA B(1,1) /0.0D0/
      DO J = 1, N
         DO I = 1, M
            A(I,J) = I + J
         END DO
      END DO
      DO IT = 1, 3
      DO J = 2, N-1
         DO I = 1, M
            A(I,J) = (A(I,J-1) + A(I,J+1)) * 0.5D0
         END DO
      END DO
      DO J = 1, N
         A(1,J) = A(1,J) + 1
         CALL FILL(B(1,J), M, J)
      END DO
      END DO
      S = 0
      DO J = 1, N
         DO I = 1, M
            S = S + A(I,J) * I + B(I,J)
         END DO
      END DO
      PRINT *, S
      END

      SUBROUTINE FILL(X, M, J)
      INTEGER M, J, I
      DOUBLE PRECISION X(M)
      DO I = 1, M
         X(I) = MOD(I * J, 17) * 0.25D0
      END DO
      END
