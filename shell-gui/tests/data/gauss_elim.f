      PROGRAM GELIM
C     Gaussian elimination without pivoting on a diagonally dominant
C     system, then back substitution: step I subtracts a multiple of
C     row I from every row below it. Written sequentially; sapfor --auto
C     divides the rows and reads row I through REMOTE_ACCESS while the
C     loop updates the rows below it.
      INTEGER N
      PARAMETER (N = 400)
      DOUBLE PRECISION A(N, N+1), X(N), S
      INTEGER I, J, K
      DO 10 I = 1, N
         DO 10 J = 1, N + 1
            A(I, J) = MOD(I * J + 3 * I, 11) - 5.0D0
            IF (I .EQ. J) A(I, J) = A(I, J) + 6.0D0 * N
   10 CONTINUE
      DO 1 I = 1, N - 1
         DO 5 J = I + 1, N
            DO 5 K = I + 1, N + 1
               A(J, K) = A(J, K) - A(J, I) * A(I, K) / A(I, I)
    5    CONTINUE
    1 CONTINUE
      X(N) = A(N, N+1) / A(N, N)
      DO 6 J = N - 1, 1, -1
         S = A(J, N+1)
         DO 7 K = J + 1, N
            S = S - A(J, K) * X(K)
    7    CONTINUE
         X(J) = S / A(J, J)
    6 CONTINUE
      S = 0.0D0
      DO 8 I = 1, N
         S = S + X(I) * I
    8 CONTINUE
      WRITE (*, '(F24.14)') S
      WRITE (*, '(3F20.14)') X(1), X(N/2), X(N)
      END
