C     NPB SP's shape: the grid's sizes come from a file at run time, the
C     main program derives NX2 and NZ2 from them once, and ADI's solvers
C     sweep lines of the 3-D arrays through a work array in COMMON,
C     written for the whole line, then updated at its third point. It is
C     private to each iteration of the outer loops only when a line has
C     three points at least, so those loops are parallel only under that
C     test. XSOLVE's loop over K may take the distribution of R's last
C     dimension; ZSOLVE sweeps along K, and its loop over J may be
C     divided over copies. With two points a side the loops run as they
C     are, over the distributed data.
      PROGRAM LINES
      INTEGER NX, NY, NZ, NX2, NZ2
      COMMON /GRID/ NX, NY, NZ, NX2, NZ2
      DOUBLE PRECISION U(24,24,24), R(24,24,24)
      COMMON /FIELDS/ U, R
      INTEGER I, J, K, IT
      DOUBLE PRECISION S
      OPEN(1, FILE='grid.dat', STATUS='OLD')
      READ(1,*) NX, NY, NZ
      CLOSE(1)
      NX2 = NX - 2
      NZ2 = NZ - 2
      DO K = 1, 24
         DO J = 1, 24
            DO I = 1, 24
               U(I,J,K) = 1.0D0 / (I + 2*J + 3*K)
               R(I,J,K) = MOD(I*J + K, 7) * 0.125D0
            END DO
         END DO
      END DO
      DO IT = 1, 3
         CALL ADI
      END DO
      S = 0
      DO K = 1, 24
         DO J = 1, 24
            DO I = 1, 24
               S = S + R(I,J,K) * MOD(I + 2*J + K, 5)
            END DO
         END DO
      END DO
      PRINT '(F16.8, 2F20.15)', S, R(2,3,4), R(NX,NY,NZ)
      END

      SUBROUTINE ADI
      INTEGER NX, NY, NZ, NX2, NZ2
      COMMON /GRID/ NX, NY, NZ, NX2, NZ2
      CALL XSOLVE
      CALL ZSOLVE
      END

      SUBROUTINE XSOLVE
      INTEGER NX, NY, NZ, NX2, NZ2
      COMMON /GRID/ NX, NY, NZ, NX2, NZ2
      DOUBLE PRECISION U(24,24,24), R(24,24,24)
      COMMON /FIELDS/ U, R
      DOUBLE PRECISION LHS(0:24), CV(0:24)
      COMMON /WORK/ LHS, CV
      INTEGER I, J, K
      DO K = 1, NZ
         DO J = 1, NY
            DO I = 1, NX
               LHS(I) = 2.0D0 + U(I,J,K)
            END DO
            LHS(3) = LHS(3) + 0.5D0
            DO I = 2, NX
               R(I,J,K) = 0.5D0 * R(I,J,K) + R(I-1,J,K) / LHS(I-1)
            END DO
         END DO
      END DO
      END

      SUBROUTINE ZSOLVE
      INTEGER NX, NY, NZ, NX2, NZ2
      COMMON /GRID/ NX, NY, NZ, NX2, NZ2
      DOUBLE PRECISION U(24,24,24), R(24,24,24)
      COMMON /FIELDS/ U, R
      DOUBLE PRECISION LHS(0:24), CV(0:24)
      COMMON /WORK/ LHS, CV
      INTEGER I, J, K
      DO J = 1, NY
         DO I = 1, NX
            DO K = 1, NZ
               LHS(K) = 0.25D0 + U(I,J,K)
            END DO
            LHS(3) = LHS(3) * 0.5D0
            DO K = 2, NZ
               R(I,J,K) = 0.5D0 * R(I,J,K) + LHS(K) * R(I,J,K-1)
            END DO
         END DO
      END DO
      END
