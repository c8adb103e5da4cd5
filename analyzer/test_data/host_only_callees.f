C     Procedures that run no region ("host-only") called between regions
C     (NPB BT: BINVCRHS, MATMUL_SUB inside the solver loops). BUMP writes
C     elements of its dummy array: its caller declares them actual after
C     the loop of calls, and BUMP carries no directive. SETB writes a
C     COMMON array that a region reads: it declares its writes itself
C     (a caller need not declare the block), once for its loop. The loop
C     of BUMP calls is parallel (stride 7) but no region: regions call no
C     procedures.
      PROGRAM HOSTON
      PARAMETER (N = 4000)
      COMMON /W/ A(N), B(N)
      DOUBLE PRECISION S
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I) / REAL(N)
         B(I) = 0.0
   10 CONTINUE
C EXPECT: sequential blockers(call,dep)
      DO 50 IT = 1, 3
C EXPECT: parallel
         DO 20 I = 2, N, 7
            CALL BUMP(A, I, N)
   20    CONTINUE
         CALL SETB(IT)
C EXPECT: parallel
         DO 30 I = 1, N
            DO 25 K = 1, 40
               A(I) = A(I) + 0.01*B(I)*COS(A(I))
   25       CONTINUE
   30    CONTINUE
   50 CONTINUE
      S = 0.0D0
C EXPECT: parallel reduction(sum:s)
      DO 40 I = 1, N
         S = S + A(I)
   40 CONTINUE
      WRITE (6, '(A, F20.6)') ' SUM', S
      WRITE (6, '(A, 3F12.6)') ' A', A(2), A(9), A(N)
      END

      SUBROUTINE BUMP(X, K, N)
      DIMENSION X(N)
      X(K) = 2.0*X(K) + 1.0
      X(K-1) = X(K-1) - 0.25
      END

      SUBROUTINE SETB(IT)
      PARAMETER (N = 4000)
      COMMON /W/ A(N), B(N)
C EXPECT: across
      DO 10 I = 4, N, 3
         B(I) = 0.5*B(I-3) + 1.0/REAL(IT)
   10 CONTINUE
      END
