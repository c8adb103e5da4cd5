C     2-D Gauss-Seidel relaxation in place, 500x500, that prints its
C     whole array element by element at the end (issue 18's second
C     program, written for bench/issue18.sh).
      PROGRAM GSP
      PARAMETER (N = 500, NIT = 100)
      DOUBLE PRECISION A(N,N), S
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = 0.0D0
         IF (I .EQ. 1 .OR. J .EQ. 1 .OR. I .EQ. N .OR. J .EQ. N)
     &      A(I,J) = DBLE(I + J)
   10 CONTINUE
      DO 40 IT = 1, NIT
         DO 20 J = 2, N - 1
         DO 20 I = 2, N - 1
            A(I,J) = 0.25D0 * (A(I-1,J) + A(I+1,J)
     &             + A(I,J-1) + A(I,J+1))
   20    CONTINUE
   40 CONTINUE
      OPEN (1, FILE = 'gs.out')
      DO 50 J = 1, N
      DO 50 I = 1, N
         WRITE (1, '(F14.6)') A(I,J)
   50 CONTINUE
      CLOSE (1)
      S = 0.0D0
      DO 60 J = 1, N
         S = S + A(J,J)
   60 CONTINUE
      WRITE (6, '(A, F20.6)') ' DIAG', S
      END
