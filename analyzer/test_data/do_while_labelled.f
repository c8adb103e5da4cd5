C     Fixed-form DO WHILE, both the labelled form "DO 20 WHILE (...)"
C     ending on a labelled CONTINUE and the "DO WHILE ... END DO"
C     form.  They carry no expectation line; the counted loops inside do.
      PROGRAM DOWLAB
      PARAMETER (N = 8)
      REAL X(N), S
      INTEGER I, K, NHALF
C EXPECT: parallel
      DO 10 I = 1, N
         X(I) = REAL(I * 16)
   10 CONTINUE
      K = 0
      S = 1.0E30
      DO 20 WHILE (S .GT. 10.0)
         K = K + 1
C EXPECT: parallel
         DO 15 I = 1, N
            X(I) = X(I) * 0.5
   15    CONTINUE
         S = 0.0
C EXPECT: parallel reduction(max:s)
         DO 18 I = 1, N
            S = MAX(S, X(I))
   18    CONTINUE
   20 CONTINUE
      NHALF = 0
      DO WHILE (NHALF .LT. 3)
         NHALF = NHALF + 1
C EXPECT: parallel
         DO I = 1, N
            X(I) = X(I) + 1.0
         END DO
      END DO
      WRITE (*, 100) K, S, X(N)
  100 FORMAT (' K =', I3, '  S =', F8.3, '  X(N) =', F8.3)
      END
