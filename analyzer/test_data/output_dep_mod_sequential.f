C     A(MOD(I,2)+1) is written by every other iteration: an output
C     dependence whose distance is not a single constant (2, 4, 6, ...)
C     and whose subscript is not affine: sequential, blocker dep.
C     Reading through the same kind of subscript from an array that the
C     loop does not write is harmless.
      PROGRAM OUTDEP
      PARAMETER (N = 9)
      REAL A(2), B(N), C(2), D(N)
      INTEGER I
      A(1) = 0.0
      A(2) = 0.0
      C(1) = 10.0
      C(2) = 20.0
C EXPECT: parallel
      DO 10 I = 1, N
         B(I) = REAL(I * I)
   10 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 20 I = 1, N
         A(MOD(I,2) + 1) = B(I)
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, N
         D(I) = B(I) + C(MOD(I,2) + 1)
   30 CONTINUE
      PRINT 100, A(1), A(2), D(N)
  100 FORMAT (' A =', 2F8.1, '  D(N) =', F8.1)
      END
