C     Dependences whose distance is not constant: reversal A(I) =
C     A(N-I+1) over the whole range (distance N+1-2I varies) and an
C     indirect write C(IDX(I)) that may hit any element.  Both are
C     sequential with blocker dep.  An indirect READ from an array the
C     loop does not write (a gather) is parallel.
      PROGRAM NCDIST
      PARAMETER (N = 10)
      REAL A(N), C(N), D(N)
      INTEGER IDX(N), I
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I)
         C(I) = REAL(2 * I)
         IDX(I) = MOD(3 * I, N) + 1
   10 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 20 I = 1, N
         A(I) = A(N - I + 1)
   20 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 30 I = 1, N
         C(IDX(I)) = C(I) + A(I)
   30 CONTINUE
C EXPECT: parallel
      DO 40 I = 1, N
         D(I) = A(IDX(I)) * 2.0 + C(I)
   40 CONTINUE
      PRINT 100, A(1), A(N), C(1), D(N)
  100 FORMAT (' A1 =', F6.1, ' AN =', F6.1, ' C1 =', F6.1,
     &        ' DN =', F6.1)
      END
