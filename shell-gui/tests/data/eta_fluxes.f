C     NPB LU's eta-direction fluxes in small (RHS's nest over K): for
C     each plane K and row I, a loop over J fills the COMMON work array
C     FLUX, and the loops after it read FLUX at J-1 and J+1; a second
C     filling loop starts at J = 2 and reads U at J-1; the dissipation
C     updates fixed planes J = 2 and J = NY-1 and the planes between
C     them from U at J-2 .. J+2. In the variants that divide J, the nest
C     over K runs in order and each loop over J is divided, the filling
C     loops one index past each block (SHADOW_COMPUTE). The sweeps along
C     K and I after RHS change U between its calls.
      PROGRAM ETA
      INTEGER NX, NY, NZ
      PARAMETER (NX = 12, NY = 30, NZ = 14)
      DOUBLE PRECISION U(5, NX, NY, NZ), RSD(5, NX, NY, NZ)
      DOUBLE PRECISION FLUX(5, NY), S
      INTEGER I, J, K, M, IT
      COMMON /CVAR/ U, RSD, FLUX
      DO 10 K = 1, NZ
         DO 10 J = 1, NY
            DO 10 I = 1, NX
               DO 10 M = 1, 5
                  U(M, I, J, K) = 1.0D0 + MOD(M + 2*I + 3*J + 5*K, 17)
     &                            / 16.0D0
                  RSD(M, I, J, K) = 0.0D0
   10 CONTINUE
      DO 90 IT = 1, 4
         CALL RHS(NX, NY, NZ)
C        a sweep along K: a recurrence over K
         DO 40 K = 2, NZ
            DO 40 J = 1, NY
               DO 40 I = 1, NX
                  DO 40 M = 1, 5
                     U(M, I, J, K) = 0.5D0 * U(M, I, J, K)
     &                    + 0.25D0 * U(M, I, J, K-1)
     &                    + 1.0D-3 * RSD(M, I, J, K)
   40    CONTINUE
C        a sweep along I
         DO 50 K = 1, NZ
            DO 50 J = 1, NY
               DO 50 I = 2, NX
                  DO 50 M = 1, 5
                     U(M, I, J, K) = 0.75D0 * U(M, I, J, K)
     &                    + 0.25D0 * U(M, I-1, J, K)
   50    CONTINUE
   90 CONTINUE
      S = 0.0D0
      DO 100 K = 1, NZ
         DO 100 J = 1, NY
            DO 100 I = 1, NX
               DO 100 M = 1, 5
                  S = S + RSD(M, I, J, K) * MOD(I + J + K + M, 7)
     &                  + U(M, I, J, K)
  100 CONTINUE
      PRINT '(A, F26.8)', 'checksum', S
      END

      SUBROUTINE RHS(NX, NY, NZ)
      INTEGER NX, NY, NZ
      DOUBLE PRECISION U(5, 12, 30, 14), RSD(5, 12, 30, 14)
      DOUBLE PRECISION FLUX(5, 30), T, TM, FLX(30)
      INTEGER I, J, K, M
      COMMON /CVAR/ U, RSD, FLUX
      DO 60 K = 2, NZ - 1
         DO 50 I = 2, NX - 1
            DO 20 J = 1, NY
               FLUX(1, J) = U(3, I, J, K)
               T = U(3, I, J, K) / U(1, I, J, K)
               DO 15 M = 2, 5
                  FLUX(M, J) = U(M, I, J, K) * T + 0.1D0 * M
   15          CONTINUE
   20       CONTINUE
            DO 25 J = 2, NY - 1
               DO 24 M = 1, 5
                  RSD(M, I, J, K) = RSD(M, I, J, K)
     &                 - 0.5D0 * (FLUX(M, J+1) - FLUX(M, J-1))
   24          CONTINUE
   25       CONTINUE
            DO 30 J = 2, NY
               T = 1.0D0 / U(1, I, J, K)
               TM = 1.0D0 / U(1, I, J-1, K)
               DO 28 M = 2, 5
                  FLUX(M, J) = U(M, I, J, K) * T - U(M, I, J-1, K) * TM
   28          CONTINUE
   30       CONTINUE
            DO 35 J = 2, NY - 1
               RSD(1, I, J, K) = RSD(1, I, J, K) + 0.01D0 *
     &              (U(1, I, J-1, K) - 2.0D0 * U(1, I, J, K)
     &               + U(1, I, J+1, K))
               DO 34 M = 2, 5
                  RSD(M, I, J, K) = RSD(M, I, J, K)
     &                 + 0.2D0 * (FLUX(M, J+1) - FLUX(M, J))
   34          CONTINUE
   35       CONTINUE
C           FLX: a filler, then one divided one behind (ON U(1,I,J-1,K))
C           that reads only its own elements, and a reader one ahead: the
C           second reaches nowhere past its block, and it must not merge
C           FLX either (a merge first makes every copy process 0's)
            DO 38 J = 1, NY
               FLX(J) = U(2, I, J, K) * 0.5D0
   38       CONTINUE
            DO 40 J = 2, NY
               FLX(J) = FLX(J) + U(1, I, J-1, K)
   40       CONTINUE
            DO 45 J = 1, NY - 1
               RSD(1, I, J, K) = RSD(1, I, J, K) + 0.1D0 * FLX(J+1)
   45       CONTINUE
   50    CONTINUE
         DO 52 I = 2, NX - 1
            DO 52 M = 1, 5
               RSD(M, I, 2, K) = RSD(M, I, 2, K) - 0.01D0 *
     &              (5.0D0 * U(M, I, 2, K) - 4.0D0 * U(M, I, 3, K)
     &               + U(M, I, 4, K))
   52    CONTINUE
         DO 54 J = 3, NY - 2
            DO 54 I = 2, NX - 1
               DO 54 M = 1, 5
                  RSD(M, I, J, K) = RSD(M, I, J, K) - 0.01D0 *
     &                 (U(M, I, J-2, K) - 4.0D0 * U(M, I, J-1, K)
     &                  + 6.0D0 * U(M, I, J, K)
     &                  - 4.0D0 * U(M, I, J+1, K)
     &                  + U(M, I, J+2, K))
   54    CONTINUE
         DO 56 I = 2, NX - 1
            DO 56 M = 1, 5
               RSD(M, I, NY-1, K) = RSD(M, I, NY-1, K) - 0.01D0 *
     &              (U(M, I, NY-3, K) - 4.0D0 * U(M, I, NY-2, K)
     &               + 5.0D0 * U(M, I, NY-1, K))
   56    CONTINUE
   60 CONTINUE
      END
