C     A nest no reference of which can be aligned with a distribution: the diagonal
C     S(I) = A(I,I) under A(BLOCK,BLOCK) (both distributed dimensions indexed by I). The
C     variant is not rejected for it: the nest runs on every process over the distributed
C     data (the runtime fetches the diagonal from its owners), and the other nests stay
C     parallel. The data are sums of halves and quarters: every order of the reduction
C     gives the same bits. The DISTRIBUTE hint makes --auto take that variant.
      PROGRAM HOSTFB
      INTEGER N
      PARAMETER (N = 48)
C$SPF DISTRIBUTE A(BLOCK,BLOCK)
      DOUBLE PRECISION A(N,N), B(N,N), S(N), T
      INTEGER I, J, K
C EXPECT: parallel
      DO 10 J = 1, N
C EXPECT: parallel
         DO 10 I = 1, N
            A(I,J) = I + 2 * J
            B(I,J) = 0.0
   10 CONTINUE
C EXPECT: sequential private(b) blockers(dep)
      DO 40 K = 1, 5
C EXPECT: parallel
         DO 20 J = 2, N - 1
C EXPECT: parallel
            DO 20 I = 2, N - 1
               B(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)) / 4
   20    CONTINUE
C EXPECT: parallel
         DO 30 J = 2, N - 1
C EXPECT: parallel
            DO 30 I = 2, N - 1
               A(I,J) = B(I,J) + K
   30    CONTINUE
   40 CONTINUE
C EXPECT: parallel
      DO 50 I = 1, N
         S(I) = A(I,I) * 2.0
   50 CONTINUE
C     and a loop writing the anti-diagonal of the distributed array (sequential)
C EXPECT: sequential blockers(dep)
      DO 60 I = 1, N
         A(I, N + 1 - I) = S(I) + A(N + 1 - I, I)
   60 CONTINUE
      T = 0.0
C EXPECT: parallel reduction(sum:t)
      DO 70 J = 1, N
C EXPECT: parallel reduction(sum:t)
         DO 70 I = 1, N
            T = T + A(I,J) * I
   70 CONTINUE
      PRINT '(F20.6)', T
      PRINT '(4F14.6)', (S(I), I = 1, N, 12)
      END
