C     GOTO to a label outside the loop ends the loop early: blocker
C     exit.  A GOTO that leaves only the inner loop of a nest and lands
C     inside the outer loop's body is an exit for the inner loop only;
C     the outer loop stays parallel (I is the inner loop's index).
C     A GOTO that leaves both loops is an exit for both.
      PROGRAM EXGOTO
      PARAMETER (N = 12, M = 5)
      REAL A(N), B(N,M), C(N,M), TARGT
      INTEGER IFIRST(M), I, J, IFOUND
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(I) * 1.5
    5 CONTINUE
C EXPECT: parallel
      DO 8 J = 1, M
C EXPECT: parallel
         DO 7 I = 1, N
            B(I,J) = REAL(I * J) - REAL(3 * J)
            C(I,J) = 0.0
    7    CONTINUE
    8 CONTINUE
      TARGT = 7.0
C EXPECT: sequential blockers(exit)
      DO 10 I = 1, N
         IF (A(I) .GT. TARGT) GOTO 20
   10 CONTINUE
   20 IFOUND = I
C EXPECT: parallel
      DO 50 J = 1, M
C EXPECT: sequential blockers(exit)
         DO 30 I = 1, N
            IF (B(I,J) .GT. 0.0) GOTO 40
   30    CONTINUE
   40    IFIRST(J) = I
   50 CONTINUE
C EXPECT: sequential blockers(exit)
      DO 70 J = 1, M
C EXPECT: sequential blockers(exit)
         DO 60 I = 1, N
            IF (B(I,J) .GT. 40.0) GO TO 80
            C(I,J) = B(I,J) * 2.0
   60    CONTINUE
   70 CONTINUE
   80 CONTINUE
      WRITE (*, 100) IFOUND, IFIRST, C(N,1), C(1,M)
  100 FORMAT (' FOUND', I4, '  FIRST', 5I4, 2F8.1)
      END
