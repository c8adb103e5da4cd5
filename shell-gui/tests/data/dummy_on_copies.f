C     A subroutine gets E whole: its dummy X takes E's distribution
C     (INHERIT). Its loop over J fills the work array W2 from X(I+1,J)
C     for I = 0..M and updates X(57,J) through W2(2) and W2(3): W2 is
C     private when M >= 3, so the loop is parallel only under that test.
C     Where E's rows are divided no reference fits the loop: it is
C     divided on a template over a full copy of the dummy (a loop that
C     read the local block at global indices printed another checksum
C     at --np 2).
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
