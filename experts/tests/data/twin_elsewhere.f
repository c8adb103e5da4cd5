      PROGRAM HL
C     A (the heaviest array, the template tried first) and B, local to
C     OTHER, are twins through FILL: B cannot be aligned with A where A is
C     not declared, so no variant of A can run (FILL would inherit A's
C     distribution at one call and get the replicated B at the other).
      INTEGER N, I, J
      PARAMETER (N = 200)
      DOUBLE PRECISION A(N, N), S
      CALL FILL(A, N)
      S = 0
      DO 10 J = 2, N - 1
         DO 10 I = 2, N - 1
            S = S + A(I-1, J) + A(I+1, J) * A(I, J+1)
   10 CONTINUE
      PRINT *, S
      CALL OTHER
      END

      SUBROUTINE OTHER
      INTEGER N
      PARAMETER (N = 200)
      DOUBLE PRECISION B(N, N)
      CALL FILL(B, N)
      PRINT *, B(3, 4)
      END

      SUBROUTINE FILL(X, M)
      INTEGER M, I, J
      DOUBLE PRECISION X(M, M)
      DO 20 J = 1, M
         DO 20 I = 1, M
            X(I, J) = I * 0.5D0 + J
   20 CONTINUE
      END
