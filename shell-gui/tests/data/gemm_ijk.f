      PROGRAM GEMMIJ
C     A matrix product written I, J, K (the order of the formula, not
C     of the memory): each element of C adds up its products over K.
C     sapfor --auto keeps K inside the nest, in order, and the runtime
C     runs I innermost. Integers: every order of the sums would print
C     the same values, so the test also reads the directive.
      INTEGER N
      PARAMETER (N = 90)
      INTEGER A(N, N), B(N, N), C(N, N), I, J, K, S
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I, J) = MOD(I + 2 * J, 7) - 3
         B(I, J) = MOD(3 * I + J, 5) - 2
         C(I, J) = MOD(I * J, 4)
   10 CONTINUE
      DO 30 I = 1, N
      DO 30 J = 1, N
      DO 30 K = 1, N
         C(I, J) = C(I, J) + A(I, K) * B(K, J)
   30 CONTINUE
      S = 0
      DO 40 J = 1, N
      DO 40 I = 1, N
         S = S + C(I, J) * MOD(I + J, 3)
   40 CONTINUE
      WRITE (*, '(A, I12)') ' CHECKSUM', S
      WRITE (*, '(A, 3I8)') ' CORNERS', C(1, 1), C(N, 1), C(N, N)
      END
