      PROGRAM MAIN
      PARAMETER (N=600)
      COMMON /F/ A(N,N), B(N,N)
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = I + 2*J
   10 CONTINUE
      DO 20 K = 1, 5
         CALL SMOOTH
   20 CONTINUE
      S = 0.
      DO 30 J = 1, N
      DO 30 I = 1, N
         S = S + A(I,J)
   30 CONTINUE
      PRINT '(F14.3)', S
      END
