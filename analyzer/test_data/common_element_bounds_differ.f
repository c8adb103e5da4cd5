C     As common_work_through_callee.f, but SHOW declares the grid
C     G(0:2): its G(1) is another element than the main program's, so
C     nothing is known of G's elements, N2 = G(1) - 2 is no fact, and
C     the reads W(I+1) for I up to G(1) - 2 are not shown inside what
C     EDGES(N2 + 1) and the loop wrote: K is sequential.
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
      CALL SHOW
      PRINT *, R
      END

      SUBROUTINE EDGES(NI)
      INTEGER NI
      DOUBLE PRECISION W(0:20)
      COMMON /WORK/ W
      W(0) = 1
      W(NI) = 1
      END

      SUBROUTINE SOLVE(U, R)
      INTEGER G(3), N2
      COMMON /GRID/ G, N2
      DOUBLE PRECISION W(0:20)
      COMMON /WORK/ W
      DOUBLE PRECISION U(0:20,10), R(0:20,10)
      INTEGER I, K
C EXPECT: sequential blockers(call, dep)
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

      SUBROUTINE SHOW
      INTEGER G(0:2), N2
      COMMON /GRID/ G, N2
      PRINT *, G(1), N2
      END
