C***********************************************************************
C     LEGACY - HEAT SPREADING ON A RECTANGULAR PLATE
C     WRITTEN IN THE STYLE OF A 1970S FORTRAN 77 CODE: COMMON BLOCKS,
C     PARAMETERS, DATA, LABELLED AND SHARED-LABEL DO LOOPS, ARITHMETIC
C     IF, GOTO, FORMAT.  THE FIELD T LIVES IN COMMON /FIELD/.
C***********************************************************************
      PROGRAM LEGACY
      PARAMETER (NX = 160, NY = 120, NSTEP = 200, NPRT = 50)
      COMMON /FIELD/ T(NX,NY), TN(NX,NY)
      COMMON /COEF/ CX, CY
      DIMENSION PROF(NX), SMP(NX), WGT(3)
      DOUBLE PRECISION TSUM
      DATA WGT /0.25, 0.5, 0.25/
      DATA NLOW, NMID, NHIGH /3*0/
C
      CX = 0.20
      CY = 0.15
      CALL INIT
C
C     TIME LOOP.  PRINT THE LARGEST CHANGE EVERY NPRT STEPS.
C
      DO 30 ISTEP = 1, NSTEP
         CALL RELAX(DELTA)
         IF (MOD(ISTEP, NPRT) .NE. 0) GOTO 30
         WRITE (6, 100) ISTEP, DELTA
   30 CONTINUE
C
C     COLUMN AVERAGES: COLAVG WRITES ONLY ITS FIRST ARGUMENT, PROF(I)
C
      DO 40 I = 1, NX
         CALL COLAVG(PROF(I), I)
   40 CONTINUE
C
C     SMOOTHED PROFILE WITH THE WEIGHTS FROM THE DATA STATEMENT
C
      SMP(1) = PROF(1)
      SMP(NX) = PROF(NX)
      DO 45 I = 2, NX - 1
         SMP(I) = WGT(1)*PROF(I-1) + WGT(2)*PROF(I) + WGT(3)*PROF(I+1)
   45 CONTINUE
C
C     MAXLOC-STYLE SEARCH OVER THE SMOOTHED PROFILE
C
      PMAX = SMP(1)
      IPMAX = 1
      DO 60 I = 2, NX
         IF (SMP(I) .LE. PMAX) GOTO 60
         PMAX = SMP(I)
         IPMAX = I
   60 CONTINUE
C
C     MAXLOC OVER THE WHOLE PLATE (TWO LOOPS, ONE TERMINAL LABEL)
C
      TMAX = T(1,1)
      IM = 1
      JM = 1
      DO 70 J = 1, NY
      DO 70 I = 1, NX
         IF (T(I,J) .LE. TMAX) GOTO 70
         TMAX = T(I,J)
         IM = I
         JM = J
   70 CONTINUE
C
C     MEAN OF THE PROFILE, THEN CLASSIFY POINTS WITH AN ARITHMETIC IF
C
      TSUM = 0.0D0
      DO 75 J = 1, NY
      DO 75 I = 1, NX
   75 TSUM = TSUM + T(I,J)
      PMEAN = REAL(TSUM / DBLE(NX*NY))
      DO 80 I = 1, NX
         IF (SMP(I) - PMEAN) 71, 72, 73
   71    NLOW = NLOW + 1
         GOTO 80
   72    NMID = NMID + 1
         GOTO 80
   73    NHIGH = NHIGH + 1
   80 CONTINUE
C
      WRITE (6, 110) TSUM, PMEAN
      WRITE (6, 120) PMAX, IPMAX
      WRITE (6, 130) TMAX, IM, JM
      WRITE (6, 140) NLOW, NMID, NHIGH
      WRITE (6, 150) (SMP(I), I = 1, NX, 20)
  100 FORMAT (1X, 'STEP', I5, 5X, 'MAX CHANGE', F12.6)
  110 FORMAT (1X, 'TOTAL HEAT', F16.4, 5X, 'MEAN', F10.5)
  120 FORMAT (1X, 'PROFILE MAXIMUM', F10.5, ' AT I =', I4)
  130 FORMAT (1X, 'PLATE MAXIMUM', F12.5, ' AT (', I4, ',', I4, ')')
  140 FORMAT (1X, 'BELOW/AT/ABOVE MEAN', 3I6)
  150 FORMAT (1X, 'PROFILE', 8F8.3)
      END
C
C***********************************************************************
      SUBROUTINE INIT
C     COLD PLATE, HOT LEFT EDGE RISING WITH J, A WARM PATCH INSIDE
      PARAMETER (NX = 160, NY = 120)
      COMMON /FIELD/ T(NX,NY), TN(NX,NY)
      DO 10 J = 1, NY
      DO 10 I = 1, NX
         T(I,J) = 0.0
   10 CONTINUE
      DO 20 J = 1, NY
         T(1,J) = 20.0 * REAL(J) / REAL(NY)
   20 CONTINUE
      DO 30 J = NY/3, NY/2
      DO 30 I = NX/2, (3*NX)/4
         T(I,J) = 90.0 + 0.05*REAL(I) + 0.02*REAL(J)
   30 CONTINUE
      DO 40 J = 1, NY
      DO 40 I = 1, NX
         TN(I,J) = T(I,J)
   40 CONTINUE
      RETURN
      END
C
C***********************************************************************
      SUBROUTINE RELAX(DELTA)
C     ONE EXPLICIT STEP INTO TN, THEN COPY BACK AND FIND MAX CHANGE
      PARAMETER (NX = 160, NY = 120)
      COMMON /FIELD/ T(NX,NY), TN(NX,NY)
      COMMON /COEF/ CX, CY
      DO 10 J = 2, NY - 1
      DO 10 I = 2, NX - 1
         TN(I,J) = T(I,J) + CX*(T(I-1,J) - 2.0*T(I,J) + T(I+1,J))
     &                    + CY*(T(I,J-1) - 2.0*T(I,J) + T(I,J+1))
   10 CONTINUE
      DELTA = 0.0
      DO 20 J = 2, NY - 1
      DO 20 I = 2, NX - 1
         DELTA = MAX(DELTA, ABS(TN(I,J) - T(I,J)))
         T(I,J) = TN(I,J)
   20 CONTINUE
      RETURN
      END
C
C***********************************************************************
      SUBROUTINE COLAVG(AVG, I)
C     AVERAGE OF COLUMN I OF THE PLATE (ALONG J)
      PARAMETER (NX = 160, NY = 120)
      COMMON /FIELD/ T(NX,NY), TN(NX,NY)
      DOUBLE PRECISION S
      S = 0.0D0
      DO 10 J = 1, NY
         S = S + DBLE(T(I,J))
   10 CONTINUE
      AVG = REAL(S / DBLE(NY))
      RETURN
      END
