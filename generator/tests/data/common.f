      PROGRAM MAIN
      INTEGER N
      PARAMETER (N = 16)
      REAL A(N,N), S
      COMMON /GRID/ A
      INTEGER I, J
      CALL INIT
      S = 0.
      DO 10 J = 1, N
      DO 10 I = 1, N
   10 S = S + A(I,J)
      PRINT *, S
      END

      SUBROUTINE INIT
      INTEGER N
      PARAMETER (N = 16)
      REAL A(N,N)
      COMMON /GRID/ A
      INTEGER I, J
   15 DO 20 J = 1, N
         DO 20 I = 1, N
            A(I,J) = I + 2*J
   20 CONTINUE
      END
