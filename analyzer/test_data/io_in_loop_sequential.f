C     I/O inside a loop: blocker io (also for the enclosing loop when
C     the I/O is in the inner loop).  A constant-distance recurrence
C     next to the I/O is reported as a dependence, not as a blocker.
C     A loop with I/O and a carried scalar has both blockers.
      PROGRAM IOLOOP
      PARAMETER (N = 6, M = 3)
      REAL A(N), B(N), C(N,M), S, X
      INTEGER I, J
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(I)
         B(I) = 0.5 * REAL(I)
    5 CONTINUE
C EXPECT: parallel
      DO 8 J = 1, M
C EXPECT: parallel
         DO 7 I = 1, N
            C(I,J) = REAL(I - J)
    7    CONTINUE
    8 CONTINUE
C EXPECT: sequential blockers(io)
      DO 10 I = 1, N
         PRINT 100, I, A(I)
   10 CONTINUE
C EXPECT: sequential blockers(io)
      DO 20 I = 2, N
         A(I) = A(I-1) + B(I)
         WRITE (*, 100) I, A(I)
   20 CONTINUE
C EXPECT: sequential blockers(io)
      DO 40 J = 1, M
C EXPECT: sequential blockers(io)
         DO 30 I = 1, N
            IF (C(I,J) .GT. 3.0) WRITE (6, 110) I, J
   30    CONTINUE
   40 CONTINUE
C EXPECT: sequential blockers(io)
      DO 60 J = 1, M
         S = 0.0
C EXPECT: parallel reduction(sum:s)
         DO 50 I = 1, N
            S = S + C(I,J)
   50    CONTINUE
         WRITE (*, 120) J, S
   60 CONTINUE
      X = 0.0
C EXPECT: sequential blockers(io,scalar)
      DO 70 I = 1, N
         X = X * 0.5 + A(I)
         PRINT 130, X
   70 CONTINUE
  100 FORMAT (' I =', I3, '  A =', F8.2)
  110 FORMAT (' BIG AT', 2I3)
  120 FORMAT (' COLUMN', I3, '  SUM =', F8.2)
  130 FORMAT (' X =', F10.4)
      END
