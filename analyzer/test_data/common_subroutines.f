C     COMMON blocks shared by the main program and three subroutines.
C     The loops inside the subroutines are parallel.  The time loop in
C     the main program calls STEP, which reads and writes the COMMON
C     arrays X and Y, so its iterations conflict through the calls:
C     blocker call.
      PROGRAM COMSUB
      PARAMETER (N = 20)
      COMMON /GRID/ X(N), Y(N)
      COMMON /PARS/ ALPHA, NSTEP
      REAL XNORM
      INTEGER IT
      NSTEP = 5
      ALPHA = 0.2
      CALL INIT
C EXPECT: sequential blockers(call)
      DO 10 IT = 1, NSTEP
         CALL STEP
   10 CONTINUE
      CALL NORM(XNORM)
      WRITE (*, 100) XNORM, X(1), X(N/2)
  100 FORMAT (' NORM =', F10.5, '  X1 =', F9.5, '  XMID =', F9.5)
      END

      SUBROUTINE INIT
      PARAMETER (N = 20)
      COMMON /GRID/ X(N), Y(N)
C EXPECT: parallel
      DO 10 I = 1, N
         X(I) = REAL(MOD(I, 5))
         Y(I) = 0.0
   10 CONTINUE
      END

      SUBROUTINE STEP
      PARAMETER (N = 20)
      COMMON /GRID/ X(N), Y(N)
      COMMON /PARS/ ALPHA, NSTEP
C EXPECT: parallel
      DO 10 I = 2, N - 1
         Y(I) = X(I) + ALPHA * (X(I-1) - 2.0 * X(I) + X(I+1))
   10 CONTINUE
C EXPECT: parallel
      DO 20 I = 2, N - 1
         X(I) = Y(I)
   20 CONTINUE
      END

      SUBROUTINE NORM(R)
      PARAMETER (N = 20)
      COMMON /GRID/ X(N), Y(N)
      R = 0.0
C EXPECT: parallel reduction(sum:r)
      DO 10 I = 1, N
         R = R + X(I) * X(I)
   10 CONTINUE
      R = SQRT(R)
      END
