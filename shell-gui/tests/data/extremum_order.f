C     Extremum searches with many equal values (MAXLOC/MINLOC ties): the
C     sequential program keeps the first in each loop's own order.  A
C     downward search along the second dimension; a 2-D search that
C     records both indices (IY, JY: whatever divides it, the indices
C     tell the processes' results apart in the loop's order); the same
C     search recording only the inner index (IV: divided along J, a
C     later process's equal maximum has a smaller I); an upward search;
C     and a search with .GE. that keeps the last of equal values.
      PROGRAM EXTORD
      INTEGER N
      PARAMETER (N = 62)
      DOUBLE PRECISION B(N,N), XM, YM, VM, ZM, WM
      INTEGER I, J, JX, IY, JY, IV, JZ, JW
      DO 10 J = 1, N
         DO 10 I = 1, N
            B(I,J) = DBLE(MOD(I + J, 5))
   10 CONTINUE
      XM = 1.0D30
      JX = 0
      DO 30 J = N, 1, -1
         IF (B(3,J) .LT. XM) THEN
            XM = B(3,J)
            JX = J
         END IF
   30 CONTINUE
      YM = -1.0D30
      IY = 0
      JY = 0
      DO 40 J = 1, N
         DO 40 I = 1, N
            IF (B(I,J) .GT. YM) THEN
               YM = B(I,J)
               IY = I
               JY = J
            END IF
   40 CONTINUE
      VM = -1.0D30
      IV = 0
      DO 45 J = 1, N
         DO 45 I = 1, N
            IF (B(I,J) .GT. VM) THEN
               VM = B(I,J)
               IV = I
            END IF
   45 CONTINUE
      ZM = -1.0D30
      JZ = 0
      DO 50 J = 1, N
         IF (B(5,J) .GT. ZM) THEN
            ZM = B(5,J)
            JZ = J
         END IF
   50 CONTINUE
      WM = -1.0D30
      JW = 0
      DO 60 J = 1, N
         IF (B(7,J) .GE. WM) THEN
            WM = B(7,J)
            JW = J
         END IF
   60 CONTINUE
      PRINT *, XM, JX
      PRINT *, YM, IY, JY
      PRINT *, VM, IV
      PRINT *, ZM, JZ
      PRINT *, WM, JW
      END
