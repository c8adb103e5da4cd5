C     Loops blocked by hand (cache blocking written inline): DO JB = 1,
C     N, NB, then JE = MIN(JB + NB - 1, N), or JE = JB + NB - 1 and
C     IF (JE .GT. N) JE = N, then DO J = JB, JE. The code before the
C     inner DO bounds JE by JB + NB - 1, so an iteration of JB touches
C     columns JB..JB+NB-1 only, and the loop over JB is parallel (not
C     an array reduction of A). Not when a block reaches the next
C     one's first column (JE = MIN(JB + NB, N)), nor when a block reads
C     the last column of the block before it.
      PROGRAM INBLK
      INTEGER M, N
      PARAMETER (M = 30, N = 45)
      DOUBLE PRECISION A(M, N), B(M, N), S
      INTEGER I, J
      DO 10 J = 1, N
         DO 10 I = 1, M
            A(I, J) = I + 2 * J
            B(I, J) = I - J
   10 CONTINUE
      CALL BLOCKS(A, B, M, N)
      S = 0
      DO 20 J = 1, N
         DO 20 I = 1, M
            S = S + A(I, J) * J + B(I, J)
   20 CONTINUE
      PRINT *, S
      END

      SUBROUTINE BLOCKS(A, B, M, N)
      INTEGER M, N, I, J, JB, JE, NB
      PARAMETER (NB = 8)
      DOUBLE PRECISION A(M, N), B(M, N)
C EXPECT: parallel private(je)
      DO 10 JB = 1, N, NB
         JE = MIN(JB + NB - 1, N)
         DO 10 J = JB, JE
            DO 10 I = 1, M
               A(I, J) = A(I, J) + B(I, J) * 2
   10 CONTINUE
C EXPECT: parallel private(je)
      DO 20 JB = 1, N, 4
         JE = JB + 3
         IF (JE .GT. N) JE = N
         DO 20 I = 2, M - 1
            DO 20 J = JB, JE
               B(I, J) = A(I - 1, J) + A(I + 1, J)
   20 CONTINUE
C EXPECT: sequential private(je) blockers(dep)
      DO 30 JB = 1, N, NB
         JE = MIN(JB + NB, N)
         DO 30 J = JB, JE
            DO 30 I = 1, M
               A(I, J) = A(I, J) * 2 - I
   30 CONTINUE
C EXPECT: sequential private(je) blockers(dep)
      DO 40 JB = 2, N, NB
         JE = MIN(JB + NB - 1, N)
         DO 40 J = JB, JE
            DO 40 I = 1, M
               B(I, J) = B(I, J - 1) - A(I, J)
   40 CONTINUE
      END
