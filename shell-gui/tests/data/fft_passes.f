      PROGRAM FFTL
C     Passes along x, y and z of a 3-D array, as NPB FT's FFTXYZ makes
C     them: in place along x and y, and along z into XOUT, a vector laid
C     out by hand as the 3-D array (XOUT(I+(N1+1)*(J-1+N2*K))). The
C     calls give PASSES U and V, and U for both dummies.
      INTEGER NX, NY, NZ
      PARAMETER (NX = 16, NY = 12, NZ = 10)
      DOUBLE PRECISION U(NX+1,NY,NZ), V(NX+1,NY,NZ)
      INTEGER I, J, K, IT
      DO K = 1, NZ
         DO J = 1, NY
            DO I = 1, NX + 1
               U(I,J,K) = MOD(I * 7 + J * 5 + K * 3, 17)
               V(I,J,K) = 0
            END DO
         END DO
      END DO
      CALL PASSES(1, U, V, NX, NY, NZ)
      DO IT = 1, 3
         CALL SCALE(V, U, NX, NY, NZ, IT)
         CALL PASSES(-1, U, U, NX, NY, NZ)
         CALL CHECK(U, NX, NY, NZ, IT)
      END DO
      END

      SUBROUTINE PASSES(SG, X, XOUT, N1, N2, N3)
      INTEGER SG, N1, N2, N3
      DOUBLE PRECISION X(N1+1,N2,N3), XOUT((N1+1)*N2*N3), T(64)
      INTEGER I, J, K
      DO K = 1, N3
         DO J = 1, N2
            DO I = 1, N1
               T(I) = X(I,J,K)
            END DO
            DO I = 1, N1
               X(I,J,K) = MOD(T(I) + SG * T(N1+1-I) + 2 * J, 1009.D0)
            END DO
         END DO
      END DO
      DO K = 1, N3
         DO I = 1, N1
            DO J = 1, N2
               T(J) = X(I,J,K)
            END DO
            DO J = 1, N2
               X(I,J,K) = MOD(T(J) * 2 + T(N2+1-J) + SG * K, 1009.D0)
            END DO
         END DO
      END DO
      DO J = 1, N2
         DO I = 1, N1
            DO K = 1, N3
               T(K) = X(I,J,K)
            END DO
            DO K = 0, N3 - 1
               XOUT(I+(N1+1)*(J-1+N2*K)) = MOD(T(K+1) * 3 + T(N3-K)
     &            + SG, 1009.D0)
            END DO
         END DO
      END DO
      END

      SUBROUTINE SCALE(X, Y, N1, N2, N3, IT)
      INTEGER N1, N2, N3, IT, I, J, K
      DOUBLE PRECISION X(N1+1,N2,N3), Y(N1+1,N2,N3)
      DO K = 1, N3
         DO J = 1, N2
            DO I = 1, N1
               X(I,J,K) = MOD(X(I,J,K) * (IT + 1) + I, 1013.D0)
               Y(I,J,K) = X(I,J,K)
            END DO
         END DO
      END DO
      END

      SUBROUTINE CHECK(X, N1, N2, N3, IT)
      INTEGER N1, N2, N3, IT, I, J, K
      DOUBLE PRECISION X(N1+1,N2,N3), S
      S = 0
      DO K = 1, N3
         DO J = 1, N2
            DO I = 1, N1
               S = S + X(I,J,K) * (I + J + K)
            END DO
         END DO
      END DO
      PRINT *, IT, S, X(1,1,1), X(N1,N2,N3)
      END
