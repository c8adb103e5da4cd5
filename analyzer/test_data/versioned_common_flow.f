C     NPB SP's solvers in small: SOLX and SOLY share the COMMON work
C     array W. Each fills W(0:N+1) in every iteration of its outer loop
C     and then updates W(2), which it wrote first only when the grid
C     has 3 points or more along its axis (N = G(d) - 2, set once by
C     the main program from values the analysis cannot follow). What
C     the last iteration leaves in W is read first by the next solver
C     only on a smaller grid, so each loop is parallel with W private
C     when both sizes are large enough: its own test and the other's.
C     SOLZ updates W(N+2), which no iteration writes first: no test.
      PROGRAM VFLOW
      INTEGER G(2), N1, N2
      COMMON /GRID/ G, N1, N2
      DOUBLE PRECISION U(0:20,20), R(0:20,20)
      COMMON /FIELD/ U, R
      INTEGER I, K, IT
      G(1) = MOD(17 * 3, 7) + 9
      G(2) = MOD(5 * 7, 6) + 8
      N1 = G(1) - 2
      N2 = G(2) - 2
C EXPECT: parallel
      DO K = 1, 20
C EXPECT: parallel
         DO I = 0, 20
            U(I,K) = MOD(I * 3 + K, 7) + 0.5D0
            R(I,K) = 0
         END DO
      END DO
C EXPECT: sequential blockers(call)
      DO IT = 1, 2
         CALL SOLX
         CALL SOLY
         CALL SOLZ
      END DO
      PRINT *, R(1,1), R(N1,N2), R(5,7), R(2,3)
      END

      SUBROUTINE SOLX
      INTEGER G(2), N1, N2
      COMMON /GRID/ G, N1, N2
      DOUBLE PRECISION U(0:20,20), R(0:20,20)
      COMMON /FIELD/ U, R
      DOUBLE PRECISION W(0:21)
      COMMON /WORK/ W
      INTEGER I, K
C EXPECT: sequential blockers(dep) when[G(1) .GE. 3; G(2) .GE. 3] vprivate(w)
      DO K = 1, N2
C EXPECT: parallel
         DO I = 0, N1 + 1
            W(I) = U(I,K) * 2
         END DO
         W(2) = W(2) + 1
C EXPECT: parallel
         DO I = 1, N1
            R(I,K) = R(I,K) + W(I-1) + W(I+1) + W(2)
         END DO
      END DO
      END

      SUBROUTINE SOLY
      INTEGER G(2), N1, N2
      COMMON /GRID/ G, N1, N2
      DOUBLE PRECISION U(0:20,20), R(0:20,20)
      COMMON /FIELD/ U, R
      DOUBLE PRECISION W(0:21)
      COMMON /WORK/ W
      INTEGER I, K
C EXPECT: sequential blockers(dep) when[G(2) .GE. 3; G(1) .GE. 3] vprivate(w)
      DO I = 1, N1
C EXPECT: parallel
         DO K = 0, N2 + 1
            W(K) = U(I,K+1) * 3
         END DO
         W(2) = W(2) + 1
C EXPECT: parallel
         DO K = 1, N2
            R(I,K) = R(I,K) + W(K-1) - W(K+1) + W(2)
         END DO
      END DO
      END

      SUBROUTINE SOLZ
      INTEGER G(2), N1, N2
      COMMON /GRID/ G, N1, N2
      DOUBLE PRECISION U(0:20,20), R(0:20,20)
      COMMON /FIELD/ U, R
      DOUBLE PRECISION V(0:21)
      COMMON /WORKZ/ V
      INTEGER I, K
C EXPECT: sequential blockers(dep)
      DO K = 1, N2
C EXPECT: parallel
         DO I = 0, N1 + 1
            V(I) = U(I,K) + K
         END DO
         V(N1 + 2) = V(N1 + 2) * 0.5D0 + 1
C EXPECT: parallel
         DO I = 1, N1
            R(I,K) = R(I,K) + V(I) * V(N1 + 2)
         END DO
      END DO
      END
