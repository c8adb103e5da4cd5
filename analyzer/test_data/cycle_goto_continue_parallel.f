C     A GOTO to the loop's own terminal CONTINUE only skips the rest
C     of the iteration (a CYCLE): the loop stays parallel.  Jumping
C     forward inside the body is harmless too.  A GOTO from an inner
C     loop to the OUTER loop's terminal statement leaves the inner
C     loop (exit for it) but is a CYCLE for the outer loop.
      PROGRAM CYCGO
      PARAMETER (N = 10, M = 4)
      REAL A(N), B(N), C(N,M), D(N,M), E(M), T
      INTEGER I, J
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(I) - 4.0
         B(I) = -1.0
    5 CONTINUE
C EXPECT: parallel
      DO 8 J = 1, M
C EXPECT: parallel
         DO 7 I = 1, N
            C(I,J) = REAL(I + J) * 0.5
            D(I,J) = 0.0
    7    CONTINUE
         E(J) = 0.0
    8 CONTINUE
C EXPECT: parallel
      DO 10 I = 1, N
         IF (A(I) .LE. 0.0) GOTO 10
         B(I) = SQRT(A(I))
   10 CONTINUE
C EXPECT: parallel private(t)
      DO 30 J = 1, M
C EXPECT: parallel private(t)
         DO 20 I = 1, N
            T = C(I,J) - 3.0
            IF (T .LT. 0.0) GO TO 20
            C(I,J) = T * 2.0
   20    CONTINUE
   30 CONTINUE
C EXPECT: parallel
      DO 40 I = 1, N
         IF (A(I) .GT. 2.0) GOTO 35
         B(I) = B(I) + 10.0
   35    A(I) = A(I) * 2.0
   40 CONTINUE
C EXPECT: parallel
      DO 60 J = 1, M
C EXPECT: sequential blockers(exit)
         DO 50 I = 1, N
            IF (C(I,J) .GT. 5.0) GOTO 60
            D(I,J) = C(I,J)
   50    CONTINUE
         E(J) = 1.0
   60 CONTINUE
      WRITE (*, 100) B
      WRITE (*, 110) C(N,M), D(2,2), E
  100 FORMAT (10F7.2)
  110 FORMAT (2F8.2, 4F5.1)
      END
