C     Sum and product reductions in the forms S = S + X, S = X + S,
C     S = S - X (all sum), P = P * X (product), an integer counter
C     sum, and two reductions plus a private temporary in one loop.
      PROGRAM REDSP
      PARAMETER (N = 12)
      REAL X(N), S1, S2, S3, P, Q, T
      DOUBLE PRECISION D
      INTEGER I, NS
C EXPECT: parallel
      DO 10 I = 1, N
         X(I) = 1.0 + REAL(I) / 10.0
   10 CONTINUE
      S1 = 0.0
C EXPECT: parallel reduction(sum:s1)
      DO 20 I = 1, N
         S1 = S1 + X(I)
   20 CONTINUE
      S2 = 0.0
C EXPECT: parallel reduction(sum:s2)
      DO 30 I = 1, N
         S2 = X(I) * X(I) + S2
   30 CONTINUE
      S3 = 100.0
C EXPECT: parallel reduction(sum:s3)
      DO 40 I = 1, N
         S3 = S3 - X(I)
   40 CONTINUE
      P = 1.0
C EXPECT: parallel reduction(product:p)
      DO 50 I = 1, N
         P = P * X(I)
   50 CONTINUE
      NS = 0
C EXPECT: parallel reduction(sum:ns)
      DO 60 I = 1, N
         NS = NS + MOD(I, 3)
   60 CONTINUE
      D = 0.0D0
      Q = 1.0
C EXPECT: parallel private(t) reduction(sum:d,product:q)
      DO 70 I = 1, N
         T = X(I) * 0.5
         D = D + DBLE(T)
         Q = Q * (1.0 + T * 0.01)
   70 CONTINUE
      WRITE (*, 100) S1, S2, S3, P
      WRITE (*, 110) NS, D, Q
  100 FORMAT (' S1 =', F9.4, ' S2 =', F9.4, ' S3 =', F9.4,
     &        ' P =', F11.4)
  110 FORMAT (' NS =', I4, ' D =', F9.4, ' Q =', F9.6)
      END
