C     The grid size N comes from a file at run time. FILL's loop over J
C     writes T(0:N-1), then updates T(2): private to each iteration
C     when N >= 3, a value carried between iterations otherwise. The
C     generated program tests N .GE. 3 where the loop starts and runs
C     it in parallel only then (with N = 2 a parallel loop would print
C     another F(0,998)).
      PROGRAM VERS
      INTEGER N
      COMMON /GRID/ N
      DOUBLE PRECISION F(0:999,0:999), S
      INTEGER I, J
      OPEN(1, FILE='grid.dat', STATUS='OLD')
      READ(1,*) N
      CLOSE(1)
      CALL FILL(F)
      S = 0
      DO J = 0, 999
         DO I = 0, 999
            S = S + F(I,J) * MOD(I+J, 7)
         END DO
      END DO
      PRINT *, N, S, F(0,998), F(3,7)
      END

      SUBROUTINE FILL(F)
      INTEGER N
      COMMON /GRID/ N
      DOUBLE PRECISION F(0:999,0:999), T(0:999)
      INTEGER I, J
      DO J = 0, 999
         DO I = 0, 999
            F(I,J) = 0
         END DO
         T(J) = 0
      END DO
      DO J = 1, 998
         DO I = 0, N - 1
            T(I) = DBLE(I * J) + 1.0D0 / (I + 1)
         END DO
         T(2) = T(2) + 1
         F(0,J) = T(2)
         DO I = 1, N - 2
            F(I,J) = T(I-1) + T(I+1)
         END DO
      END DO
      END
