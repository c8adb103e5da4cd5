C     Block-IF extremum searches and ties.  A strict comparison (.GT.,
C     .LT., either operand order) updates only on a better value, so of
C     equal extrema the first is kept: what a combined MAXLOC/MINLOC
C     gives.  With .GE. or .LE. the last one is kept: not a reduction,
C     the loop stays sequential (the blocker says why).  A downward loop
C     with .LT. keeps the first in its own order (the highest index):
C     still a reduction here; which distributions may divide it is the
C     expert's affair.
      PROGRAM TIES
      PARAMETER (N = 20)
      REAL X(N), XA, XB, XC, XD, XE
      INTEGER I, IA, IB, IC, ID, IE
C EXPECT: parallel
      DO 5 I = 1, N
         X(I) = REAL(MOD(I * 7, 5))
    5 CONTINUE
      XA = -1.0
      IA = 0
C EXPECT: parallel reduction(maxloc:xa)
      DO 10 I = 1, N
         IF (XA .LT. X(I)) THEN
            XA = X(I)
            IA = I
         END IF
   10 CONTINUE
      XB = -1.0
      IB = 0
C EXPECT: sequential blockers(scalar)
      DO 20 I = 1, N
         IF (X(I) .GE. XB) THEN
            XB = X(I)
            IB = I
         END IF
   20 CONTINUE
      XC = 100.0
      IC = 0
C EXPECT: sequential blockers(scalar)
      DO 30 I = 1, N
         IF (XC .GE. X(I)) THEN
            XC = X(I)
            IC = I
         END IF
   30 CONTINUE
      XD = 100.0
      ID = 0
C EXPECT: parallel reduction(minloc:xd)
      DO 40 I = N, 1, -1
         IF (X(I) .LT. XD) THEN
            XD = X(I)
            ID = I
         END IF
   40 CONTINUE
      XE = 100.0
      IE = 0
C EXPECT: sequential blockers(scalar)
      DO 50 I = 1, N
         IF (X(I) .LE. XE) THEN
            XE = X(I)
            IE = I
         END IF
   50 CONTINUE
      PRINT *, XA, IA, XB, IB, XC, IC, XD, ID, XE, IE
      END
