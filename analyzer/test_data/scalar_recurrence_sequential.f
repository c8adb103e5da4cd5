C     Scalars carried from one iteration to the next that are neither
C     private nor a reduction: blocker scalar.
C     - X = X*0.5 + A(I) mixes operators and X is also read for B(I)
C     - S = S + A(I) looks like a sum but S is read inside (C(I) = S)
C     - T = A(I) - T alternates the sign of T: not a reduction form
C     - Q is assigned only when A(I) > 2, so D(I) = Q may read the
C       value left by an earlier iteration
      PROGRAM SCREC
      PARAMETER (N = 10)
      REAL A(N), B(N), C(N), D(N), X, S, T, Q
      INTEGER I
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(MOD(I * 7, 5))
    5 CONTINUE
      X = 1.0
C EXPECT: sequential blockers(scalar)
      DO 10 I = 1, N
         X = X * 0.5 + A(I)
         B(I) = X
   10 CONTINUE
      S = 0.0
C EXPECT: sequential blockers(scalar)
      DO 20 I = 1, N
         S = S + A(I)
         C(I) = S
   20 CONTINUE
      T = 0.0
C EXPECT: sequential blockers(scalar)
      DO 30 I = 1, N
         T = A(I) - T
   30 CONTINUE
      Q = 0.0
C EXPECT: sequential blockers(scalar)
      DO 40 I = 1, N
         IF (A(I) .GT. 2.0) Q = A(I)
         D(I) = Q
   40 CONTINUE
      WRITE (*, 100) X, B(N), C(N), T, D(N)
  100 FORMAT (' X =', F9.5, ' B =', F9.5, ' C =', F6.1, ' T =', F6.1,
     &        ' D =', F6.1)
      END
