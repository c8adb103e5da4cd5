C     Blocks of columns given to a procedure (cache blocking): DO JB =
C     1, N, NB with JE = MIN(JB + NB - 1, N), or JE = JB + NB - 1 then
C     IF (JE .GT. N) JE = N, and CALL KERN(A(1,JB), LDA, JE - JB + 1).
C     The code before the call shows that the block stays inside A's N
C     columns and inside JB..JB+NB-1, so the blocks are disjoint and
C     the loop over JB is parallel (also for a 1-D array, V(JB)). Not
C     when a block reaches the next one's first column (JE = JB + NB),
C     nor when JE may pass N (MIN(JB + NB - 1, N + 1): here N is a
C     multiple of NB, so it does not).
      PROGRAM BLOCKD
      INTEGER LDA, N
      PARAMETER (LDA = 6, N = 40)
      DOUBLE PRECISION A(LDA, N), V(N), S
      INTEGER I, J
      DO 10 J = 1, N
         V(J) = J
         DO 10 I = 1, LDA
            A(I, J) = I + J
   10 CONTINUE
      CALL BLOCKS(A, V, LDA, N)
      S = 0
      DO 20 J = 1, N
         S = S + V(J)
         DO 20 I = 1, LDA
            S = S + A(I, J) * I
   20 CONTINUE
      PRINT *, S
      END

      SUBROUTINE BLOCKS(A, V, LDA, N)
      INTEGER LDA, N, JB, JE, NB
      PARAMETER (NB = 8)
      DOUBLE PRECISION A(LDA, N), V(N)
C EXPECT: parallel private(je)
      DO 10 JB = 1, N, NB
         JE = MIN(JB + NB - 1, N)
         CALL KERN(A(1, JB), LDA, JE - JB + 1)
   10 CONTINUE
C EXPECT: parallel private(je)
      DO 20 JB = 1, N, NB
         JE = JB + NB - 1
         IF (JE .GT. N) JE = N
         CALL KERN(A(1, JB), LDA, JE - JB + 1)
         CALL HALVE(V(JB), JE - JB + 1)
   20 CONTINUE
C EXPECT: sequential private(je) blockers(call)
      DO 30 JB = 1, N, NB
         JE = JB + NB
         IF (JE .GT. N) JE = N
         CALL KERN(A(1, JB), LDA, JE - JB + 1)
   30 CONTINUE
C EXPECT: sequential private(je) blockers(call)
      DO 40 JB = 1, N, NB
         JE = MIN(JB + NB - 1, N + 1)
         CALL KERN(A(1, JB), LDA, JE - JB + 1)
   40 CONTINUE
      END

      SUBROUTINE KERN(X, LDX, NC)
      INTEGER LDX, NC, I, J
      DOUBLE PRECISION X(LDX, *)
C EXPECT: parallel
      DO 10 J = 1, NC
C EXPECT: across
         DO 10 I = 2, LDX
            X(I, J) = X(I, J) * 0.5D0 + X(I - 1, J)
   10 CONTINUE
      END

      SUBROUTINE HALVE(Y, M)
      INTEGER M, I
      DOUBLE PRECISION Y(M)
C EXPECT: parallel
      DO 10 I = 1, M
         Y(I) = Y(I) * 0.5D0 + I
   10 CONTINUE
      END
