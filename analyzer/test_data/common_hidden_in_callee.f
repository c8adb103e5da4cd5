C     Procedures that change a COMMON block which the calling program
C     does not declare: CNT counts its calls in /C/, A calls CNT (two
C     calls deep), the function F calls G, which adds to /C/ from inside
C     an expression, and BLOCK DATA gives the counter its first value.
C     Every iteration of the loops that call them changes the same
C     variable: blocker call, although the main program never names K.
      PROGRAM HIDDEN
      INTEGER I, F, N
      PARAMETER (N = 1000)
      INTEGER IX(N), IS
      DOUBLE PRECISION X(N), S
C EXPECT: sequential blockers(call)
      DO I = 1, N
         X(I) = I
         CALL CNT
      END DO
C EXPECT: sequential blockers(call)
      DO I = 1, N
         CALL A(X(I))
      END DO
C EXPECT: sequential blockers(call)
      DO I = 1, N
         IX(I) = F(I) + 1
      END DO
      S = 0
      IS = 0
C EXPECT: parallel reduction(sum:s,sum:is)
      DO I = 1, N
         S = S + X(I)
         IS = IS + IX(I)
      END DO
      PRINT *, S, IS
      CALL SHOW
      END

      SUBROUTINE A(Y)
      DOUBLE PRECISION Y
      Y = Y * 2
      CALL CNT
      END

      SUBROUTINE CNT
      INTEGER K
      COMMON /C/ K
      K = K + 1
      END

      INTEGER FUNCTION F(I)
      INTEGER I, G
      F = G(I) * 2
      END

      INTEGER FUNCTION G(I)
      INTEGER I, K
      COMMON /C/ K
      K = K + I
      G = MOD(K, 7)
      END

      SUBROUTINE SHOW
      INTEGER K
      COMMON /C/ K
      PRINT *, 'count', K
      END

      BLOCK DATA BD
      INTEGER K
      COMMON /C/ K
      DATA K /5/
      END
