C     EDGES declares the COMMON work array W(1:21), SOLVE W(0:20): the
C     same storage under other indices. EDGES surely writes its W(1)
C     and W(NI+1), SOLVE's W(0) and W(N): taken under SOLVE's indices
C     they would cover the read W(1), which the last statement of each
C     iteration writes for the next one. Sections a callee surely
C     writes map only onto a member declared alike: K is sequential.
      PROGRAM CWB
      DOUBLE PRECISION U(0:20,10), R(0:20,10)
      INTEGER I, K
C EXPECT: parallel
      DO 10 K = 1, 10
C EXPECT: parallel
         DO 10 I = 0, 20
            U(I,K) = MOD(I * 3 + K, 7) + 0.5D0
            R(I,K) = 0
   10 CONTINUE
      CALL SOLVE(U, R, 12)
      PRINT *, R
      END

      SUBROUTINE EDGES(NI)
      INTEGER NI
      DOUBLE PRECISION W(1:21)
      COMMON /WORK/ W
      W(1) = 1
      W(NI + 1) = 1
      END

      SUBROUTINE SOLVE(U, R, N)
      INTEGER N
      DOUBLE PRECISION W(0:20)
      COMMON /WORK/ W
      DOUBLE PRECISION U(0:20,10), R(0:20,10)
      INTEGER I, K
C EXPECT: sequential blockers(call, dep)
      DO 30 K = 1, 10
         CALL EDGES(N)
C EXPECT: parallel
         DO 20 I = 2, N
            W(I) = U(I,K) * 2
   20    CONTINUE
C EXPECT: parallel
         DO 25 I = 2, N
            R(I,K) = W(I-1) + W(I+1)
   25    CONTINUE
         W(1) = R(2,K)
   30 CONTINUE
      END
