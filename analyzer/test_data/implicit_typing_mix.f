C     IMPLICIT NONE in the main program, default implicit typing (I-N
C     integer, others real) in one subroutine, and IMPLICIT DOUBLE
C     PRECISION (A-H,O-Z) with DIMENSION statements in another.
      PROGRAM IMPMIX
      IMPLICIT NONE
      INTEGER N
      PARAMETER (N = 12)
      REAL X(N)
      DOUBLE PRECISION Y(N), SUMY
      INTEGER I, NPOS
C EXPECT: parallel
      DO 10 I = 1, N
         X(I) = REAL(I) / 3.0 - 1.0
   10 CONTINUE
      CALL DSCALE(X, Y, N)
      CALL ICOUNT(X, N, NPOS)
      SUMY = 0.0D0
C EXPECT: parallel reduction(sum:sumy)
      DO 20 I = 1, N
         SUMY = SUMY + Y(I)
   20 CONTINUE
      WRITE (*, 100) SUMY, NPOS
  100 FORMAT (' SUMY =', F12.5, '  NPOS =', I4)
      END

      SUBROUTINE DSCALE(X, Y, N)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      REAL X
      DIMENSION X(N), Y(N)
C EXPECT: parallel private(tmp)
      DO 10 I = 1, N
         TMP = DBLE(X(I)) * 2.0D0
         Y(I) = TMP * TMP + 0.5D0
   10 CONTINUE
      END

      SUBROUTINE ICOUNT(X, N, NPOS)
      DIMENSION X(N)
      NPOS = 0
C EXPECT: parallel reduction(sum:npos)
      DO 10 K = 1, N
         IF (X(K) .GT. 1.0) NPOS = NPOS + 1
   10 CONTINUE
      END
