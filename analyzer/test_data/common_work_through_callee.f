C     A work array in COMMON that a called procedure fills through the
C     block (NPB SP's LHS: LHSINIT zeroes its edge planes, the loop
C     fills those between): the call's sure writes, in the callee's
C     dummies replaced by the actual arguments, join the loop's own, so
C     W is written before it is read in every iteration of K and is
C     private. The bounds mix N2 and G(1)-2: the main program sets
C     N2 = G(1) - 2 once (G(1) itself set in an IF before), which holds
C     in every unit it calls after. EDGE0 writes only the low edge of
C     W0: the read W0(I+1) at I = N2 is another iteration's value, K
C     sequential.
      PROGRAM CWORK
      INTEGER G(3), N2, NX0
      DOUBLE PRECISION U(0:20,10), R(0:20,10)
      COMMON /GRID/ G, N2
      INTEGER I, K
      NX0 = MOD(17 * 3, 7) + 9
      IF (NX0 .GT. 20) THEN
         G(1) = 20
      ELSE
         G(1) = NX0
      END IF
      N2 = G(1) - 2
C EXPECT: parallel
      DO 10 K = 1, 10
C EXPECT: parallel
         DO 10 I = 0, 20
            U(I,K) = MOD(I * 3 + K, 7) + 0.5D0
            R(I,K) = 0
   10 CONTINUE
      CALL SOLVE(U, R)
      CALL SOLVE0(U, R)
      PRINT *, R
      END

      SUBROUTINE EDGES(NI)
      INTEGER NI
      DOUBLE PRECISION W(0:20)
      COMMON /WORK/ W
      W(0) = 1
      W(NI) = 1
      END

      SUBROUTINE EDGE0
      DOUBLE PRECISION W0(0:20)
      COMMON /WORK0/ W0
      W0(0) = 1
      END

      SUBROUTINE SOLVE(U, R)
      INTEGER G(3), N2
      COMMON /GRID/ G, N2
      DOUBLE PRECISION W(0:20)
      COMMON /WORK/ W
      DOUBLE PRECISION U(0:20,10), R(0:20,10)
      INTEGER I, K
C EXPECT: parallel private(w)
      DO 30 K = 1, 10
         CALL EDGES(N2 + 1)
C EXPECT: parallel
         DO 20 I = 1, N2
            W(I) = U(I,K) * 2
   20    CONTINUE
C EXPECT: parallel
         DO 30 I = 1, G(1) - 2
            R(I,K) = W(I-1) + W(I+1)
   30 CONTINUE
      END

      SUBROUTINE SOLVE0(U, R)
      INTEGER G(3), N2
      COMMON /GRID/ G, N2
      DOUBLE PRECISION W0(0:20)
      COMMON /WORK0/ W0
      DOUBLE PRECISION U(0:20,10), R(0:20,10)
      INTEGER I, K
C EXPECT: sequential blockers(call, dep)
      DO 30 K = 1, 10
         CALL EDGE0
C EXPECT: parallel
         DO 20 I = 1, N2
            W0(I) = U(I,K) * 2
   20    CONTINUE
C EXPECT: parallel
         DO 30 I = 1, G(1) - 2
            R(I,K) = R(I,K) + W0(I-1) + W0(I+1)
   30 CONTINUE
      END
