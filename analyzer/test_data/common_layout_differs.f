C     PUT declares /LAY/ as one array Z(20), the main program as X(10),
C     Y(10): PUT's Z(I+10) is the main program's Y(I). The loop reads
C     Y(I+1), which the call of the next iteration changes: sequential.
C     (Taken position by position, Z's accesses fell on X, and the loop
C     looked parallel.) A member maps onto the caller's only when both
C     units give it the same name and bounds; else the call may touch
C     any member of the block, whole.
      PROGRAM LAYOUT
      DOUBLE PRECISION X(10), Y(10), S(9)
      COMMON /LAY/ X, Y
      INTEGER I
C EXPECT: parallel
      DO 10 I = 1, 10
         X(I) = I
         Y(I) = 2 * I
   10 CONTINUE
C EXPECT: sequential blockers(call)
      DO 20 I = 1, 9
         CALL PUT(I)
         S(I) = Y(I+1)
   20 CONTINUE
      PRINT *, S, X, Y
      END

      SUBROUTINE PUT(I)
      INTEGER I
      DOUBLE PRECISION Z(20)
      COMMON /LAY/ Z
      Z(I + 10) = Z(I + 10) * 3
      END
