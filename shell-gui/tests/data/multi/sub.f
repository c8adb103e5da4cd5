      SUBROUTINE SMOOTH
      PARAMETER (N=600)
      COMMON /F/ A(N,N), B(N,N)
      DO 10 J = 2, N-1
      DO 10 I = 2, N-1
         B(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)) * 0.25
   10 CONTINUE
      DO 20 J = 2, N-1
      DO 20 I = 2, N-1
         A(I,J) = B(I,J)
   20 CONTINUE
      END
