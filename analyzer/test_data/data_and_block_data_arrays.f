C     Arrays initialized by DATA, in the main program and through BLOCK
C     DATA for a COMMON block: the runtime cannot distribute them yet, so
C     --auto must keep them replicated (it distributed both, and `sapfor
C     run` refused the program it wrote).
      PROGRAM DATARR
      PARAMETER (N = 400)
      DOUBLE PRECISION A(N,N), B(N,N), C(N,N), S
      COMMON /CB/ C
      DATA B(1,1) /1.0D0/
C EXPECT: parallel
      DO 10 J = 1, N
C EXPECT: parallel
      DO 10 I = 1, N
         A(I,J) = I + J + C(I,J)
   10 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 30 IT = 1, 5
C EXPECT: parallel
      DO 20 J = 2, N-1
C EXPECT: parallel
      DO 20 I = 2, N-1
         B(I,J) = A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)
         C(I,J) = B(I,J) * 0.5D0
   20 CONTINUE
C EXPECT: parallel
      DO 25 J = 2, N-1
C EXPECT: parallel
      DO 25 I = 2, N-1
         A(I,J) = B(I,J) * 0.25D0 + C(I,J) * 0.01D0
   25 CONTINUE
   30 CONTINUE
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 40 J = 1, N
C EXPECT: parallel reduction(sum:s)
      DO 40 I = 1, N
         S = S + A(I,J) + B(I,J)
   40 CONTINUE
      PRINT '(A, F24.6)', ' SUM', S
      END
      BLOCK DATA INIT
      PARAMETER (N = 400)
      DOUBLE PRECISION C(N,N)
      COMMON /CB/ C
      DATA C(1,1) /5.0D0/
      END
