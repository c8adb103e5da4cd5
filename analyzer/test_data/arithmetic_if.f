C     Arithmetic IF and computed GO TO.  When every target is inside
C     the body (or is the terminal CONTINUE) the loop is parallel; an
C     arithmetic IF with a target after the loop is an exit.
      PROGRAM ARIF
      PARAMETER (N = 9)
      REAL A(N), SGN(N), T(N)
      INTEGER I, K, IPOS
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(I) - 5.0
    5 CONTINUE
C EXPECT: parallel
      DO 40 I = 1, N
         IF (A(I)) 10, 20, 30
   10    SGN(I) = -1.0
         GOTO 40
   20    SGN(I) = 0.0
         GOTO 40
   30    SGN(I) = 1.0
   40 CONTINUE
C EXPECT: sequential blockers(exit)
      DO 50 I = 1, N
         IF (A(I) - 1.5) 50, 60, 60
   50 CONTINUE
   60 IPOS = I
C EXPECT: parallel private(k)
      DO 90 I = 1, N
         K = MOD(I, 3) + 1
         GO TO (71, 72, 73), K
   71    T(I) = A(I)
         GO TO 90
   72    T(I) = 2.0 * A(I)
         GO TO 90
   73    T(I) = -A(I)
   90 CONTINUE
      WRITE (*, 100) SGN, IPOS
      WRITE (*, 110) T
  100 FORMAT (9F5.1, I4)
  110 FORMAT (9F6.1)
      END
