C     A subroutine gets E whole: its dummy X takes E's distribution
C     (INHERIT). Its loop over J fills the work array W2 from X(I+1,J)
C     for I = 0..M and updates X(57,J) through W2(2) and W2(3): W2 is
C     private when M >= 3, so the loop is parallel only under that test.
C     Where E's rows are divided no reference fits the loop, and the
C     dummy has no full copy of its own to divide it over: it runs as it
C     is, over the distributed data (it printed another checksum at
C     --np 2 when it was divided).
      PROGRAM DOC
      INTEGER E(57,8), I, J, M, CS
      DO J = 1, 8
         DO I = 1, 57
            E(I,J) = MOD(I * 7 + J * 3, 101)
         END DO
      END DO
      M = MOD(E(3,1), 5) + 1
      CALL WSA(E, M, 2)
      CS = 0
      DO J = 1, 8
         DO I = 1, 57
            CS = MOD(CS * 31 + E(I,J) + 7, 1000003)
         END DO
      END DO
      PRINT *, M, CS, E(57,1), E(57,8)
      END

      SUBROUTINE WSA(X, M, V)
      INTEGER M, V, X(57, 8), W2(0:59), I, J
      DO I = 0, 59
         W2(I) = MOD(I * 3 + V, 37)
      END DO
      DO J = 1, 8
         DO I = 0, M
            W2(I) = MOD(X(I+1,J) + J, 100)
         END DO
         W2(2) = MOD(W2(2) + J, 100)
         X(57,J) = MOD(X(57,J) + W2(2) * 3 + W2(3), 1000)
      END DO
      END
