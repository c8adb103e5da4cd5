C     COMMON work arrays a procedure fills before it reads them, for the
C     values the program gives it (NPB FT's SCR in SWARZTRAUBER). STAGES
C     writes W(1:2**L) in each of its passes (LI * LJ stays 2**L: a
C     product of recurrences no section algebra follows) and reads
C     W(1:N) back, so a call writes all it reads first only when
C     2**L >= N. The program gives it L = LG2(N), an integer function:
C     executed with those values, every call is seen to write W first,
C     and the loop over K is parallel with W private. HALF, the same
C     passes, gets L = LG2(N) - 1 from SHORT: W(9:16) then keeps what
C     WINIT put there, and the loop calling HALF stays sequential.
      PROGRAM SVALS
      INTEGER N, M
      PARAMETER (N = 16, M = 24)
      DOUBLE PRECISION X(N, M), Z(N, M), S, T, W(64)
      COMMON /WRK/ W
      INTEGER I, K, L, LG2
      L = LG2(N)
      CALL WINIT
      DO 10 K = 1, M
         DO 10 I = 1, N
            X(I, K) = I * K + MOD(I * I, 7)
            Z(I, K) = X(I, K) - I
   10 CONTINUE
      CALL SHORT(Z, N, M, L - 1)
      DO 20 K = 1, M
         CALL STAGES(X(1, K), N, L)
   20 CONTINUE
      S = 0
      T = 0
      DO 30 K = 1, M
         DO 30 I = 1, N
            S = S + X(I, K) * I
            T = T + Z(I, K) * I
   30 CONTINUE
      PRINT *, S, T
      END

      INTEGER FUNCTION LG2(N)
      INTEGER N, P
      LG2 = 0
      P = 1
      DO WHILE (P .LT. N)
         P = P * 2
         LG2 = LG2 + 1
      END DO
      END

      SUBROUTINE WINIT
      DOUBLE PRECISION W(64)
      COMMON /WRK/ W
      INTEGER I
      DO 10 I = 1, 64
         W(I) = 0.5D0 * I
   10 CONTINUE
      END

      SUBROUTINE SHORT(Z, N, M, L)
      INTEGER N, M, L, K
      DOUBLE PRECISION Z(N, M), W(64)
      COMMON /WRK/ W
      DO 20 K = 1, M
         CALL HALF(Z(1, K), N, L)
   20 CONTINUE
      END

      SUBROUTINE STAGES(Y, N, L)
      INTEGER N, L, I, K, LI, LJ, LK, ST
      DOUBLE PRECISION Y(N), U, V, W(64)
      COMMON /WRK/ W
      LI = 2 ** L
      LJ = 1
      DO 20 ST = 1, L
         LK = LJ
         LJ = 2 * LK
         LI = LI / 2
         DO 10 I = 0, LI - 1
            DO 10 K = 1, LK
               U = Y(I * LK + K)
               V = Y(I * LK + K + N / 2)
               W(I * LJ + K) = U + V
               W(I * LJ + LK + K) = U - V * ST
   10    CONTINUE
         DO 20 I = 1, N
            Y(I) = W(I)
   20 CONTINUE
      END

      SUBROUTINE HALF(Y, N, L)
      INTEGER N, L, I, K, LI, LJ, LK, ST
      DOUBLE PRECISION Y(N), U, V, W(64)
      COMMON /WRK/ W
      LI = 2 ** L
      LJ = 1
      DO 20 ST = 1, L
         LK = LJ
         LJ = 2 * LK
         LI = LI / 2
         DO 10 I = 0, LI - 1
            DO 10 K = 1, LK
               U = Y(I * LK + K)
               V = Y(I * LK + K + N / 2)
               W(I * LJ + K) = U + V
               W(I * LJ + LK + K) = U - V * ST
   10    CONTINUE
         DO 20 I = 1, N
            Y(I) = W(I) / 4
   20 CONTINUE
      END
