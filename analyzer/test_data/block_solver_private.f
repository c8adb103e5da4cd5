C     NPB BT's x_solve: a work array LHS(5,5,3,0:N) of a COMMON block,
C     set by a call that gets it whole (LINIT writes planes 0 and ISIZE),
C     filled for I = 1..ISIZE-1, then solved by calls that get 5x5
C     blocks LHS(1,1,K,I) (sequence association: those blocks exactly).
C     ISIZE is set before the loop from an element of an array; every
C     iteration of loop J writes what it reads of LHS and FJ first, and
C     no other unit reads them through the block: LHS and FJ are
C     private and loop J is parallel.
C     SHARED fills a work array W of another COMMON block, but its
C     callee BUMP reads W through the block (a private copy passes to
C     calls as an argument only): loop J is sequential there.
      PROGRAM BSOLVE
      INTEGER N
      PARAMETER (N = 7)
      DOUBLE PRECISION LHS(5,5,3,0:N), FJ(5,0:N), R(5,0:N,6), S
      INTEGER G(3), I, J, M
      COMMON /WS/ LHS, FJ
      G(1) = N
      G(2) = 6
C EXPECT: parallel
      DO 10 J = 1, 6
C EXPECT: parallel
         DO 10 I = 0, N
C EXPECT: parallel
            DO 10 M = 1, 5
               R(M,I,J) = MOD(M * 7 + I * 3 + J, 11) + 1.0D0
   10 CONTINUE
      CALL XSOLVE(R, G)
      CALL SHARED(R, G)
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 20 J = 1, 6
C EXPECT: parallel reduction(sum:s)
         DO 20 I = 0, N
C EXPECT: parallel reduction(sum:s)
            DO 20 M = 1, 5
               S = S + R(M,I,J) * (M + I)
   20 CONTINUE
      WRITE (*, '(A, F24.10)') ' S =', S
      END

      SUBROUTINE XSOLVE(R, G)
      INTEGER N
      PARAMETER (N = 7)
      DOUBLE PRECISION LHS(5,5,3,0:N), FJ(5,0:N), R(5,0:N,6)
      INTEGER G(3), I, J, M, NN, ISIZE
      COMMON /WS/ LHS, FJ
      ISIZE = G(1) - 1
C EXPECT: parallel private(fj,lhs)
      DO 50 J = 1, G(2)
C EXPECT: parallel
         DO 15 I = 0, ISIZE
C EXPECT: parallel
            DO 15 M = 1, 5
               FJ(M,I) = R(M,I,J) * 0.5D0 + M
   15    CONTINUE
         CALL LINIT(LHS, ISIZE)
C EXPECT: parallel
         DO 20 I = 1, ISIZE - 1
C EXPECT: parallel
            DO 20 NN = 1, 5
C EXPECT: parallel
               DO 20 M = 1, 5
                  LHS(M,NN,1,I) = - FJ(M,I-1) * 0.01D0 / NN
                  LHS(M,NN,2,I) = FJ(M,I) * 0.02D0 / NN
                  LHS(M,NN,3,I) = - FJ(M,I+1) * 0.01D0 / NN
   20    CONTINUE
         CALL BINV(LHS(1,1,2,0), LHS(1,1,3,0), R(1,0,J))
C EXPECT: sequential blockers(call)
         DO 30 I = 1, ISIZE - 1
            CALL MVS(LHS(1,1,1,I), R(1,I-1,J), R(1,I,J))
            CALL MMS(LHS(1,1,1,I), LHS(1,1,3,I-1), LHS(1,1,2,I))
            CALL BINV(LHS(1,1,2,I), LHS(1,1,3,I), R(1,I,J))
   30    CONTINUE
C EXPECT: across
         DO 40 I = ISIZE - 1, 0, -1
C EXPECT: parallel
            DO 40 M = 1, 5
C EXPECT: sequential blockers(dep)
               DO 40 NN = 1, 5
                  R(M,I,J) = R(M,I,J) - LHS(M,NN,3,I) * R(NN,I+1,J)
   40    CONTINUE
   50 CONTINUE
      END

      SUBROUTINE SHARED(R, G)
      INTEGER N
      PARAMETER (N = 7)
      DOUBLE PRECISION W(5,0:N), R(5,0:N,6)
      INTEGER G(3), I, J, M
      COMMON /WT/ W
C EXPECT: sequential blockers(dep,call)
      DO 50 J = 1, G(2)
C EXPECT: parallel
         DO 15 I = 0, G(1)
C EXPECT: parallel
            DO 15 M = 1, 5
               W(M,I) = R(M,I,J) + 1
   15    CONTINUE
C EXPECT: parallel
         DO 20 I = 0, G(1)
            CALL BUMP(R(1,I,J), I)
   20    CONTINUE
   50 CONTINUE
      END

      SUBROUTINE BUMP(X, I)
      INTEGER N
      PARAMETER (N = 7)
      DOUBLE PRECISION W(5,0:N), X(5)
      INTEGER I, M
      COMMON /WT/ W
C EXPECT: parallel
      DO 10 M = 1, 5
         X(M) = X(M) + W(M,I) * 0.5D0
   10 CONTINUE
      END

      SUBROUTINE LINIT(L, SIZE)
      INTEGER SIZE, M, NN, K
      DOUBLE PRECISION L(5,5,3,0:SIZE)
C EXPECT: parallel
      DO 10 K = 1, 3
C EXPECT: parallel
         DO 10 NN = 1, 5
C EXPECT: parallel
            DO 10 M = 1, 5
               L(M,NN,K,0) = 0
               L(M,NN,K,SIZE) = 0
   10 CONTINUE
C EXPECT: parallel
      DO 20 M = 1, 5
         L(M,M,2,0) = 1
         L(M,M,2,SIZE) = 1
   20 CONTINUE
      END

      SUBROUTINE BINV(A, C, R)
      DOUBLE PRECISION A(5,5), C(5,5), R(5), P
      INTEGER M, NN
C EXPECT: parallel private(p)
      DO 10 M = 1, 5
         P = 1.0D0 / A(M,M)
         R(M) = R(M) * P
C EXPECT: parallel
         DO 10 NN = 1, 5
            C(M,NN) = C(M,NN) * P
   10 CONTINUE
      END

      SUBROUTINE MVS(A, X, Y)
      DOUBLE PRECISION A(5,5), X(5), Y(5)
      INTEGER M, NN
C EXPECT: parallel
      DO 10 M = 1, 5
C EXPECT: parallel reduction(sum:y)
         DO 10 NN = 1, 5
            Y(M) = Y(M) - A(M,NN) * X(NN)
   10 CONTINUE
      END

      SUBROUTINE MMS(A, B, C)
      DOUBLE PRECISION A(5,5), B(5,5), C(5,5)
      INTEGER M, NN, K
C EXPECT: parallel
      DO 10 M = 1, 5
C EXPECT: parallel
         DO 10 NN = 1, 5
C EXPECT: parallel reduction(sum:c)
            DO 10 K = 1, 5
               C(M,NN) = C(M,NN) - A(M,K) * B(K,NN) * 0.1D0
   10 CONTINUE
      END
