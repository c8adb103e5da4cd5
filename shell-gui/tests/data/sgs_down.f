C     Symmetric Gauss-Seidel: a sweep upwards, then one downwards (the
C     second reads the new values at I+1 and J+1), and a back
C     substitution that runs downwards along a distributed vector.
      PROGRAM SGSDN
      INTEGER N, IT, I, J
      PARAMETER (N = 60)
      DOUBLE PRECISION A(N, N), X(N), S
      DO 10 J = 1, N
         DO 10 I = 1, N
            A(I, J) = DBLE(MOD(I * 7 + J * 13, 17)) / 17.0D0
   10 CONTINUE
      DO 15 I = 1, N
         X(I) = DBLE(MOD(I * 3, 10)) / 10.0D0
   15 CONTINUE
      DO 50 IT = 1, 3
         DO 20 J = 2, N - 1
            DO 20 I = 2, N - 1
               A(I, J) = (A(I-1, J) + A(I+1, J) + A(I, J-1)
     &                 + A(I, J+1)) / 4.1D0
   20    CONTINUE
         DO 30 J = N - 1, 2, -1
            DO 30 I = N - 1, 2, -1
               A(I, J) = (A(I-1, J) + A(I+1, J) + A(I, J-1)
     &                 + A(I, J+1)) / 3.9D0
   30    CONTINUE
         DO 40 I = N - 1, 1, -1
            X(I) = 0.5D0 * X(I) + 0.5D0 * X(I+1)
   40    CONTINUE
   50 CONTINUE
      S = 0.0D0
      DO 60 J = 1, N
         DO 60 I = 1, N
            S = MAX(S, A(I, J) * DBLE(MOD(I * 31 + J * 17, 101)))
   60 CONTINUE
      PRINT *, S
      DO 70 J = 2, N - 1, 7
         WRITE (*, '(3ES25.16)') A(3, J), A(N/2, J), X(J)
   70 CONTINUE
      END
