C     Matrix product C = A B, 512x512, then a checksum of C (issue 18's
C     third program, written for bench/issue18.sh).
      PROGRAM GEMM
      PARAMETER (N = 512)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N), S
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = DBLE(MOD(I + 2*J, 7)) / 7.0D0
         B(I,J) = DBLE(MOD(3*I + J, 5)) / 5.0D0
         C(I,J) = 0.0D0
   10 CONTINUE
      DO 30 J = 1, N
      DO 30 K = 1, N
      DO 30 I = 1, N
         C(I,J) = C(I,J) + A(I,K) * B(K,J)
   30 CONTINUE
      S = 0.0D0
      DO 40 J = 1, N
      DO 40 I = 1, N
         S = S + C(I,J) * DBLE(MOD(I + J, 3))
   40 CONTINUE
      WRITE (6, '(A, F24.6)') ' CHECKSUM', S
      WRITE (6, '(A, 2F16.6)') ' CORNERS', C(1,1), C(N,N)
      END
