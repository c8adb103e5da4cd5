C     A scalar assigned in every iteration whose name is the variable of
C     the DO loop that follows (NPB BT/SP: J = 1 inside a loop over I,
C     then DO J): the DO assigns J before anything reads it, so the last
C     value from the first loop is dead and J is private there. In the
C     second pair K is printed after the loop: its last value is used.
      PROGRAM DOVAR
      INTEGER N
      PARAMETER (N = 6)
      DOUBLE PRECISION A(N,N), B(N,N), S
      INTEGER I, J, K, M
C EXPECT: parallel private(j)
      DO 20 I = 1, N
         J = 1
         A(I,J) = I
C EXPECT: parallel
         DO 10 M = 2, N
            A(I,M) = I * M
   10    CONTINUE
   20 CONTINUE
C EXPECT: parallel
      DO 40 J = 1, N
C EXPECT: parallel
         DO 30 I = 1, N
            B(I,J) = A(I,J) + J
   30    CONTINUE
   40 CONTINUE
C EXPECT: sequential blockers(scalar)
      DO 50 I = 1, N
         K = I * 2
         B(I,1) = B(I,1) + K
   50 CONTINUE
      WRITE (*, '(A, I4)') ' K =', K
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 70 J = 1, N
C EXPECT: parallel reduction(sum:s)
         DO 60 I = 1, N
            S = S + B(I,J) * I
   60    CONTINUE
   70 CONTINUE
      WRITE (*, '(A, F14.2)') ' S =', S
      END
