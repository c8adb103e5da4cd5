C     A PARAMETER and a COMMON block brought in by INCLUDE (file
C     include_common.inc next to this one) in the main program and in
C     a subroutine.  The loop bounds use N from the included file.
      PROGRAM INCCOM
      INCLUDE 'include_common.inc'
      INTEGER I
      REAL S
      SCALE = 0.5
C EXPECT: parallel
      DO 10 I = 1, N
         U(I) = REAL(I * I) * 0.1
         V(I) = 0.0
   10 CONTINUE
      CALL SMOOTH
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 20 I = 1, N
         S = S + V(I)
   20 CONTINUE
      WRITE (*, '(A, F12.4)') ' SUM V =', S
      END

      SUBROUTINE SMOOTH
      INCLUDE 'include_common.inc'
      INTEGER I
      V(1) = U(1)
      V(N) = U(N)
C EXPECT: parallel
      DO 10 I = 2, N - 1
         V(I) = SCALE * U(I) + 0.25 * (U(I-1) + U(I+1))
   10 CONTINUE
      END
