C     9-point Gauss-Seidel in place: --auto rejects the distributed
C     variants (the reasons name the file and the unit; two sweeps).
      PROGRAM SOR9
      PARAMETER (N = 400, NIT = 20)
      DOUBLE PRECISION A(N,N), S
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = DBLE(MOD(I*J, 17)) / 17.0D0
   10 CONTINUE
      DO 40 IT = 1, NIT
         DO 20 J = 2, N - 1
         DO 20 I = 2, N - 1
            A(I,J) = (A(I-1,J-1) + A(I,J-1) + A(I+1,J-1) + A(I-1,J)
     &             + A(I+1,J) + A(I-1,J+1) + A(I,J+1) + A(I+1,J+1)) / 8
   20    CONTINUE
   40 CONTINUE
      DO 50 J = 2, N - 1
      DO 50 I = 2, N - 1
         A(I,J) = (A(I-1,J) + A(I+1,J-1) + A(I-1,J+1)) / 3
   50 CONTINUE
      S = 0.0D0
      DO 60 J = 1, N
      DO 60 I = 1, N
         S = S + A(I,J) * DBLE(I + J)
   60 CONTINUE
      WRITE (6, '(A, F24.10)') ' S', S
      END
