C     Loops whose bounds are computed at run time (NPB reads GRID_POINTS
C     from a file; here ICHAR stands for that): their trip counts are not
C     known, but the arrays they index are
C     declared with constant extents, and a legal program stays inside
C     them. The cost model uses those extents (U(0:11,...): at most 12
C     iterations) instead of a default of 100. A dummy declared B(1) is
C     the F77 "any size" idiom: it bounds nothing. Compressed rows
C     DO K = IA(J), IA(J+1) - 1 share the 60 elements of V between the
C     10 rows IA describes: about 6 a row. A dummy whose extents are
C     other dummies (X(0:LD-1,...) in SCALE) is bounded by the array every
C     call passes for it (U: 12 elements along I).
      PROGRAM TRIPS
      INTEGER NX, NZ
      DOUBLE PRECISION U(0:11, 0:11, 0:5), W(40), V(60)
      INTEGER IA(11)
      NX = ICHAR('A') - 53
      NZ = ICHAR('0') - 42
C EXPECT: parallel
      DO 10 K = 0, NZ - 1
C EXPECT: parallel
         DO 10 I = 0, NX - 1
            U(I, 3, K) = I + K
   10 CONTINUE
      CALL FILL(W, NX)
      CALL SCALE(U, 12, NX)
C EXPECT: parallel
      DO J = 1, 11
         IA(J) = 1 + (J - 1) * 6
      END DO
C EXPECT: sequential blockers(dep)
      DO 30 J = 1, 10
C EXPECT: parallel
         DO 30 KK = IA(J), IA(J + 1) - 1
            V(KK) = J
   30 CONTINUE
      WRITE (*, *) U(1, 3, 1), W(2), V(7)
      END

      SUBROUTINE FILL(B, N)
      INTEGER N, I
      DOUBLE PRECISION B(1)
C EXPECT: parallel
      DO 20 I = 1, N
         B(I) = I
   20 CONTINUE
      END

      SUBROUTINE SCALE(X, LD, N)
      INTEGER LD, N, I
      DOUBLE PRECISION X(0:LD-1, 0:11, 0:5)
C EXPECT: parallel
      DO 40 I = 0, N - 1
         X(I, 3, 1) = 2 * X(I, 3, 1)
   40 CONTINUE
      END
