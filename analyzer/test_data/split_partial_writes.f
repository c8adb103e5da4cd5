C     Region loops that write only part of each column (T(1,J), a block
C     of rows for some J), then a loop reading every element. With the
C     loops split between host and accelerator (--devices host,emu) each
C     side claims whole columns of its part: the elements its iterations
C     leave must be current on that side first.
      PROGRAM SPLITW
      PARAMETER (NX = 16, NY = 12)
      COMMON /FIELD/ T(NX,NY), TN(NX,NY)
      DOUBLE PRECISION S
      CALL INIT
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 10 J = 1, NY
C EXPECT: parallel reduction(sum:s)
      DO 10 I = 1, NX
         S = S + T(I,J) * I + TN(I,J) * J * 100
   10 CONTINUE
      PRINT *, S
      END

      SUBROUTINE INIT
      PARAMETER (NX = 16, NY = 12)
      COMMON /FIELD/ T(NX,NY), TN(NX,NY)
C EXPECT: parallel
      DO 10 J = 1, NY
C EXPECT: parallel
      DO 10 I = 1, NX
         T(I,J) = 0.0
   10 CONTINUE
C EXPECT: parallel
      DO 20 J = 1, NY
         T(1,J) = 20.0 * REAL(J)
   20 CONTINUE
C EXPECT: parallel
      DO 30 J = NY/3, NY/2
C EXPECT: parallel
      DO 30 I = NX/2, (3*NX)/4
         T(I,J) = 90.0 + REAL(I) + 0.5*REAL(J)
   30 CONTINUE
C EXPECT: parallel
      DO 40 J = 1, NY
C EXPECT: parallel
      DO 40 I = 1, NX
         TN(I,J) = T(I,J)
   40 CONTINUE
      RETURN
      END
