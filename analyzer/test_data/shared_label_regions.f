C     The most common F77 nest form, DO 10 K / DO 10 J / DO 10 I ending
C     on one shared CONTINUE (or on an assignment), as accelerator
C     regions: END REGION goes after the shared terminal statement.
      PROGRAM SHLREG
      PARAMETER (N=24)
      DOUBLE PRECISION A(N,N,N), B(N,N,N), S
      INTEGER I, J, K, IT
C EXPECT: parallel
      DO 10 K = 1, N
C EXPECT: parallel
      DO 10 J = 1, N
C EXPECT: parallel
      DO 10 I = 1, N
         A(I,J,K) = I + 2*J + 3*K
   10 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 30 IT = 1, 3
C EXPECT: parallel
      DO 20 K = 2, N-1
C EXPECT: parallel
      DO 20 J = 2, N-1
C EXPECT: parallel
      DO 20 I = 2, N-1
         B(I,J,K) = (A(I-1,J,K) + A(I+1,J,K) + A(I,J-1,K)
     &             + A(I,J+1,K) + A(I,J,K-1) + A(I,J,K+1)) / 6
   20 CONTINUE
C EXPECT: parallel
      DO 25 K = 2, N-1
C EXPECT: parallel
      DO 25 J = 2, N-1
C EXPECT: parallel
      DO 25 I = 2, N-1
   25 A(I,J,K) = B(I,J,K)
   30 CONTINUE
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 40 K = 1, N
C EXPECT: parallel reduction(sum:s)
      DO 40 J = 1, N
C EXPECT: parallel reduction(sum:s)
      DO 40 I = 1, N
         S = S + A(I,J,K)
   40 CONTINUE
      PRINT *, S
      END
