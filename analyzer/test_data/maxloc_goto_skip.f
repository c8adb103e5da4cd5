C     F77 extremum searches written with a GOTO that skips the update
C     when the candidate is not better: IF (X .LE. M) GOTO 10 keeps the
C     first occurrence (MAXLOC), IF (X .GE. M) GOTO 20 is MINLOC.  With
C     .LT. the update also happens on ties, which keeps the LAST
C     occurrence: not a MAXLOC reduction, so the loop stays sequential.
      PROGRAM SKIPS
      PARAMETER (N = 12)
      REAL X(N), XM, XN, XL
      INTEGER I, IM, IN, IL
C EXPECT: parallel
      DO 5 I = 1, N
         X(I) = REAL(MOD(I * 7, 11))
    5 CONTINUE
      XM = X(1)
      IM = 1
C EXPECT: parallel reduction(maxloc:xm)
      DO 10 I = 2, N
         IF (X(I) .LE. XM) GOTO 10
         XM = X(I)
         IM = I
   10 CONTINUE
      XN = X(1)
      IN = 1
C EXPECT: parallel reduction(minloc:xn)
      DO 20 I = 2, N
         IF (X(I) .GE. XN) GOTO 20
         XN = X(I)
         IN = I
   20 CONTINUE
      XL = X(1)
      IL = 1
C EXPECT: sequential blockers(scalar)
      DO 30 I = 2, N
         IF (X(I) .LT. XL) GOTO 30
         XL = X(I)
         IL = I
   30 CONTINUE
      PRINT *, XM, IM, XN, IN, XL, IL
      END
