      PROGRAM INHDUM
C     Arrays of the main program passed whole to subroutines that
C     compute on them in parallel loops: every call passes the same
C     arrays, so the dummies are bound to them (they can inherit the
C     distribution). SCALE2 is called with ZERO's dummy and with an
C     element of C (its dummy is not bound), so C stays replicated.
      INTEGER N, IT
      PARAMETER (N = 40)
      DOUBLE PRECISION A(N, N), B(N, N), C(N), E, S
      CALL INIT(A, B, N)
      CALL ZERO(C, N)
C EXPECT: sequential blockers(call,io)
      DO 10 IT = 1, 4
         CALL SWEEP(A, B, N, E)
         PRINT *, IT, E
   10 CONTINUE
      CALL TOTAL(A, N, S)
      PRINT *, S
      CALL SCALE2(C(3), 5)
      CALL TWICE(C, N)
      PRINT *, C(1), C(N)
      END

      SUBROUTINE INIT(X, Y, M)
      INTEGER M, I, J
      DOUBLE PRECISION X(M, M), Y(M, M)
C EXPECT: parallel
      DO 20 J = 1, M
C EXPECT: parallel
         DO 10 I = 1, M
            X(I, J) = DBLE(MOD(I * J, 7)) / M
            Y(I, J) = 0
   10    CONTINUE
   20 CONTINUE
      END

      SUBROUTINE SWEEP(U, V, M, E)
      INTEGER M, I, J
      DOUBLE PRECISION U(M, M), V(M, M), E
C EXPECT: parallel
      DO 20 J = 2, M - 1
C EXPECT: parallel
         DO 10 I = 2, M - 1
            V(I, J) = (U(I-1, J) + U(I+1, J) + U(I, J-1)
     &                + U(I, J+1)) / 4
   10    CONTINUE
   20 CONTINUE
      E = 0
C EXPECT: parallel reduction(max:e)
      DO 40 J = 2, M - 1
C EXPECT: parallel reduction(max:e)
         DO 30 I = 2, M - 1
            E = MAX(E, ABS(U(I, J) - V(I, J)))
            U(I, J) = V(I, J)
   30    CONTINUE
   40 CONTINUE
      END

      SUBROUTINE TOTAL(X, M, S)
      INTEGER M, I, J
      DOUBLE PRECISION X(M, *), S
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 20 J = 1, M
C EXPECT: parallel reduction(sum:s)
         DO 10 I = 1, M
            S = S + X(I, J) * I
   10    CONTINUE
   20 CONTINUE
      END

      SUBROUTINE ZERO(W, M)
      INTEGER M, I
      DOUBLE PRECISION W(M)
C EXPECT: parallel
      DO 10 I = 1, M
         W(I) = I
   10 CONTINUE
      CALL SCALE2(W, M)
      END

      SUBROUTINE SCALE2(W, M)
      INTEGER M, I
      DOUBLE PRECISION W(M)
C EXPECT: parallel
      DO 10 I = 1, M
         W(I) = 2 * W(I)
   10 CONTINUE
      END

      SUBROUTINE TWICE(W, M)
      INTEGER M
      DOUBLE PRECISION W(M)
      W(1) = W(1) + W(M)
      END
