C     EQUIVALENCE makes A and B the same storage, and D(I) the same as
C     E(I+2).  A loop that writes one name and reads the other at a
C     different element conflicts through the alias: blocker alias.
C     Loops that use only one name of an equivalenced pair, or write
C     an unrelated array, are judged as usual.
      PROGRAM EQUIV
      PARAMETER (N = 10)
      REAL A(N), B(N), C(N), D(N), E(N+2), S
      INTEGER I
      EQUIVALENCE (A(1), B(1))
      EQUIVALENCE (D(1), E(3))
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I)
         C(I) = 0.0
   10 CONTINUE
C EXPECT: parallel
      DO 15 I = 1, N + 2
         E(I) = REAL(2 * I)
   15 CONTINUE
C EXPECT: sequential blockers(alias)
      DO 20 I = 1, N - 1
         A(I) = B(I+1) * 2.0
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, N
         C(I) = B(I) + 1.0
   30 CONTINUE
C EXPECT: sequential blockers(alias)
      DO 40 I = 1, N
         D(I) = E(I) + 1.0
   40 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 50 I = 1, N
         S = S + A(I) + C(I) + D(I)
   50 CONTINUE
      WRITE (*, '(A, F10.2)') ' S =', S
      END
