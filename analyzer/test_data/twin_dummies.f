      PROGRAM TWINS
C     One subroutine called with different arrays of the same shape:
C     FILL and SMOOTH get A, B and C at different calls (C only ever
C     through their dummies). The dummies are bound to A, the least
C     of the three, and A, B and C are twins: every distribution
C     treats them alike, so X inherits the same distribution at every
C     call. W is SMOOTH's work array at every call. BLEND gets B and C
C     in both places: both of its dummies are bound to A (its REAL*8
C     declares the actuals' DOUBLE PRECISION storage).
      INTEGER N, IT
      PARAMETER (N = 90)
      DOUBLE PRECISION A(N, N), B(N, N), C(N, N), W(N, N), S
      CALL FILL(A, N, 1.0D0)
      CALL FILL(B, N, 2.0D0)
      CALL FILL(C, N, 3.0D0)
C EXPECT: parallel
      DO 20 J = 1, N
C EXPECT: parallel
         DO 10 I = 1, N
            W(I, J) = 0
   10    CONTINUE
   20 CONTINUE
C EXPECT: sequential blockers(call)
      DO 30 IT = 1, 6
         CALL SMOOTH(A, W, N)
         CALL SMOOTH(B, W, N)
         CALL SMOOTH(C, W, N)
         CALL SMOOTH(A, W, N)
         CALL BLEND(B, C, N)
         CALL BLEND(C, B, N)
   30 CONTINUE
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 50 J = 1, N
C EXPECT: parallel reduction(sum:s)
         DO 40 I = 1, N
            S = S + A(I, J) * I + B(I, J) * J
   40    CONTINUE
   50 CONTINUE
      PRINT 100, S, A(N/2, N/3), B(7, N-3), C(N-1, 2), C(3, 40)
  100 FORMAT (F20.4 / 4F24.16)
      END

      SUBROUTINE FILL(X, M, F)
      INTEGER M, I, J
      DOUBLE PRECISION X(M, M), F
C EXPECT: parallel
      DO 20 J = 1, M
C EXPECT: parallel
         DO 10 I = 1, M
            X(I, J) = F * MOD(I * J, 17) + SQRT(DBLE(I + F * J))
   10    CONTINUE
   20 CONTINUE
      END

      SUBROUTINE SMOOTH(X, Y, M)
      INTEGER M, I, J
      DOUBLE PRECISION X(M, M), Y(M, M)
C EXPECT: parallel
      DO 20 J = 2, M - 1
C EXPECT: parallel
         DO 10 I = 2, M - 1
            Y(I, J) = (X(I-1, J) + X(I+1, J) + X(I, J-1)
     &                + X(I, J+1)) / 4
   10    CONTINUE
   20 CONTINUE
C EXPECT: parallel
      DO 40 J = 2, M - 1
C EXPECT: parallel
         DO 30 I = 2, M - 1
            X(I, J) = Y(I, J) + X(I, J) / 8
   30    CONTINUE
   40 CONTINUE
      END

      SUBROUTINE BLEND(X, Y, M)
      INTEGER M, I, J
      REAL*8 X(M, M), Y(M, M)
C EXPECT: parallel
      DO 20 J = 2, M
C EXPECT: parallel
         DO 10 I = 1, M
            Y(I, J) = (Y(I, J) + X(I, J-1)) / 2
   10    CONTINUE
   20 CONTINUE
      END
