C     A sweep whose reads come from the previous row and the next plane
C     (C(I,J,K-1) = C(I,J-1,K)): the value read at K+1 was written in
C     an earlier iteration of J, against the flow of K. A variant that
C     divides K may not pipeline J across the planes (the pipeline runs
C     from lower to higher K): J stays in order, and each row renews
C     the planes' edges. (A fuzzer program found the variants printing
C     another checksum at np 2.)
      PROGRAM AGAINST
      INTEGER N1, N2, N3
      PARAMETER (N1 = 20, N2 = 13, N3 = 8)
      INTEGER C(N1, N2, N3), I, J, K, CS
      DO 10 K = 1, N3
         DO 10 J = 1, N2
            DO 10 I = 1, N1
               C(I, J, K) = MOD(I * J + K * 7, 71)
   10 CONTINUE
      DO 110 J = 3, 11
         DO 110 K = 3, 6
            DO 110 I = 3, 18
               C(I, J, K - 1) = MOD(C(I, J - 1, K) * 3 + 1, 1000)
  110 CONTINUE
      CS = 0
      DO 20 K = 1, N3
         DO 20 J = 1, N2
            DO 20 I = 1, N1
               CS = MOD(CS * 31 + C(I, J, K) + 7, 1000003)
   20 CONTINUE
      PRINT *, CS
      END
