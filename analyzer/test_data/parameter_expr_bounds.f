C     PARAMETER constants defined by expressions (M = N*2 + 1, K2 from
C     M) used in array bounds (including 0:M+1 and -1:1) and loop
C     bounds.  The loop writing A(1:K2) and reading A(M-I+1), i.e.
C     A(21) down to A(12), never touches the same element twice:
C     parallel (the analyzer must use the PARAMETER values).
      PROGRAM PEXPR
      INTEGER N, M, K2
      PARAMETER (N = 10, M = N*2 + 1)
      PARAMETER (K2 = (M - 1) / 2)
      REAL A(M), B(0:M+1), C(N,-1:1), S
      INTEGER I, J
C EXPECT: parallel
      DO 10 I = 0, M + 1
         B(I) = REAL(I)
   10 CONTINUE
C EXPECT: parallel
      DO 20 I = 1, M
         A(I) = B(I-1) + B(I+1)
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, K2
         A(I) = A(M - I + 1) * 0.5
   30 CONTINUE
C EXPECT: parallel
      DO 50 J = -1, 1
C EXPECT: parallel
         DO 40 I = 1, N
            C(I,J) = A(I + N + J) + REAL(J)
   40    CONTINUE
   50 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 70 J = -1, 1
C EXPECT: parallel reduction(sum:s)
         DO 60 I = 1, N
            S = S + C(I,J)
   60    CONTINUE
   70 CONTINUE
      WRITE (*, 100) M, K2, A(1), A(K2), S
  100 FORMAT (' M =', I3, ' K2 =', I3, 3F9.2)
      END
