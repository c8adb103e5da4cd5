C     Red-black relaxation: the sweep over I starts at MOD(J,2)+1 with
C     step 2, so it updates only the points with I+J odd and reads only
C     points with I+J even: no two iterations of J (or of I) touch one
C     element (each I is J+1 modulo 2). Look-alikes: a read of a point
C     of the same colour in the row before (J carries it), and a step-2
C     loop from a constant start reading the other parity.
      PROGRAM REDBLK
      INTEGER N
      PARAMETER (N = 200)
      DOUBLE PRECISION A(0:N+1,0:N+1), B(N+1)
      INTEGER I, J
C EXPECT: parallel
      DO J = 0, N + 1
C EXPECT: parallel
         DO I = 0, N + 1
            A(I,J) = DBLE(MOD(I * 7 + J * 3, 11))
         END DO
      END DO
C EXPECT: parallel
      DO J = 1, N
C EXPECT: parallel
         DO I = MOD(J, 2) + 1, N, 2
            A(I,J) = 0.25D0 * (A(I-1,J) + A(I+1,J)
     &             + A(I,J-1) + A(I,J+1))
         END DO
      END DO
C EXPECT: sequential blockers(dep)
      DO J = 1, N
C EXPECT: parallel
         DO I = MOD(J + 1, 2) + 1, N - 1, 2
            A(I,J) = 0.5D0 * (A(I,J) + A(I+1,J-1))
         END DO
      END DO
C EXPECT: parallel
      DO I = 1, N + 1
         B(I) = DBLE(I)
      END DO
C EXPECT: parallel
      DO I = 1, N, 2
         B(I) = B(I+1) + 1
      END DO
      PRINT *, A(5,5), A(N,N-1), B(N-1)
      END
