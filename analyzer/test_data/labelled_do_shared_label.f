C     Labelled DO loops in F77 style: three loops that share one
C     terminal label, a GOTO to the shared label from the innermost
C     body (a CYCLE of the innermost loop), DO loops that end on an
C     assignment statement instead of CONTINUE, and "DO 40, I = ...".
      PROGRAM SHARED
      PARAMETER (NX = 6, NY = 5, NZ = 4)
      REAL A(NX,NY,NZ), B(NX,NY,NZ), C(NX), D(NX,NY), S, T
      INTEGER I, J, K
C EXPECT: parallel
      DO 10 K = 1, NZ
C EXPECT: parallel
      DO 10 J = 1, NY
C EXPECT: parallel
      DO 10 I = 1, NX
         A(I,J,K) = REAL(I + 10*J + 100*K)
         B(I,J,K) = 0.0
   10 CONTINUE
C EXPECT: parallel
      DO 20 K = 1, NZ
C EXPECT: parallel
      DO 20 J = 1, NY
C EXPECT: parallel
      DO 20 I = 1, NX
         IF (MOD(I + J + K, 3) .EQ. 0) GOTO 20
         B(I,J,K) = A(I,J,K) * 2.0
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, NX
   30 C(I) = REAL(I) * 0.5
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 40, I = 1, NX
         S = S + C(I)
   40 CONTINUE
C EXPECT: parallel
      DO 50 J = 1, NY
C EXPECT: parallel
      DO 50 I = 1, NX
   50 D(I,J) = A(I,J,1) + C(I)
C EXPECT: across
      DO 60 J = 2, NY
C EXPECT: parallel
      DO 60 I = 1, NX
   60 D(I,J) = D(I,J-1) + D(I,J)
      T = 0.0
C EXPECT: parallel reduction(sum:t)
      DO 70 K = 1, NZ
C EXPECT: parallel reduction(sum:t)
      DO 70 J = 1, NY
C EXPECT: parallel reduction(sum:t)
      DO 70 I = 1, NX
   70 T = T + B(I,J,K)
      WRITE (*, 100) S, T, D(NX,NY)
  100 FORMAT (' S =', F8.2, '  T =', F12.2, '  D =', F10.2)
      END
