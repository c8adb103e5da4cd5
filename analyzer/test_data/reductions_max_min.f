C     MAX/MIN reductions: the MAX and MIN intrinsics (either argument
C     order, also the F77 specific name AMAX1), IF-guarded updates in
C     both comparison orders, and MAXLOC/MINLOC searches that also
C     record the index (reported as maxloc:value, minloc:value).
      PROGRAM REDMM
      PARAMETER (N = 15)
      REAL X(N), XMAX, XMIN, YMAX, YMIN, ZMAX, ZMIN, WMAX, VMAX
      INTEGER I, IMAX, IMIN
C EXPECT: parallel
      DO 10 I = 1, N
         X(I) = 10.0 * SIN(REAL(I) * 0.7)
   10 CONTINUE
      XMAX = -1.0E30
C EXPECT: parallel reduction(max:xmax)
      DO 20 I = 1, N
         XMAX = MAX(XMAX, X(I))
   20 CONTINUE
      XMIN = 1.0E30
C EXPECT: parallel reduction(min:xmin)
      DO 30 I = 1, N
         XMIN = MIN(X(I), XMIN)
   30 CONTINUE
      YMAX = -1.0E30
C EXPECT: parallel reduction(max:ymax)
      DO 40 I = 1, N
         IF (X(I) .GT. YMAX) YMAX = X(I)
   40 CONTINUE
      VMAX = -1.0E30
C EXPECT: parallel reduction(max:vmax)
      DO 45 I = 1, N
         IF (VMAX .LT. X(I)) VMAX = X(I)
   45 CONTINUE
      YMIN = 1.0E30
C EXPECT: parallel reduction(min:ymin)
      DO 50 I = 1, N
         IF (X(I) .LT. YMIN) YMIN = X(I)
   50 CONTINUE
      WMAX = -1.0E30
C EXPECT: parallel reduction(max:wmax)
      DO 55 I = 1, N
         WMAX = AMAX1(WMAX, ABS(X(I)))
   55 CONTINUE
      ZMAX = -1.0E30
      IMAX = 0
C EXPECT: parallel reduction(maxloc:zmax)
      DO 60 I = 1, N
         IF (X(I) .GT. ZMAX) THEN
            ZMAX = X(I)
            IMAX = I
         END IF
   60 CONTINUE
      ZMIN = 1.0E30
      IMIN = 0
C EXPECT: parallel reduction(minloc:zmin)
      DO 70 I = 1, N
         IF (X(I) .LT. ZMIN) THEN
            ZMIN = X(I)
            IMIN = I
         ENDIF
   70 CONTINUE
      WRITE (*, 100) XMAX, XMIN, YMAX, VMAX, YMIN, WMAX
      WRITE (*, 110) ZMAX, IMAX, ZMIN, IMIN
  100 FORMAT (6F9.4)
  110 FORMAT (' MAXLOC', F9.4, I4, '  MINLOC', F9.4, I4)
      END
