C     Anti dependences (a later iteration overwrites what an earlier
C     one read) with constant distances are ACROSS as well.
      PROGRAM ANTIDP
      PARAMETER (N = 16)
      REAL A(N), B(N), C(N), D(N), S
      INTEGER I
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I)
         B(I) = REAL(N - I)
         C(I) = 1.0
         D(I) = REAL(MOD(I, 4))
   10 CONTINUE
*     shift left by one: anti dependence, distance 1
C EXPECT: across
      DO 20 I = 1, N - 1
         A(I) = A(I+1)
   20 CONTINUE
*     anti dependence, distance 3
C EXPECT: across
      DO 30 I = 1, N - 3
         B(I) = B(I+3) * 2.0 - C(I)
   30 CONTINUE
*     flow (distance 1) and anti (distance 1) in one loop
C EXPECT: across
      DO 40 I = 2, N - 1
         D(I) = (D(I-1) + D(I+1)) * 0.5
   40 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 50 I = 1, N
         S = S + A(I) + B(I) + D(I)
   50 CONTINUE
      WRITE (*, '(A, F12.4)') ' SUM =', S
      END
