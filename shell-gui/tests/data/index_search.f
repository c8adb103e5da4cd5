C     Extremum searches that record only the index (Livermore kernel 24
C     style), with many equal values: the first minimum of X; the last
C     maximum in a downward loop whose IF is the loop's terminal
C     statement; a block IF comparing the other way round; a search down
C     one column of a 2-D array.
      PROGRAM IDXS
      INTEGER N
      PARAMETER (N = 1001)
      DOUBLE PRECISION X(N), Y(N), G(40,N)
      INTEGER K, M, L, I, J, IG
      DO 10 K = 1, N
         X(K) = DBLE(MOD(K * 37, 101)) - 50.0D0
         Y(K) = DBLE(MOD(K * 13, 17))
   10 CONTINUE
      DO 15 J = 1, N
         DO 15 I = 1, 40
            G(I,J) = DBLE(MOD(I + J * 7, 23))
   15 CONTINUE
      DO 17 K = 1, N
         G(2,K) = G(2,K) + X(K) - Y(K)
   17 CONTINUE
      M = 1
      DO 24 K = 2, N
         IF (X(K) .LT. X(M)) M = K
   24 CONTINUE
      L = N
      DO 30 K = N - 1, 1, -1
   30 IF (Y(K) .GT. Y(L)) L = K
      I = 5
      DO 40 K = 1, N
         IF (Y(I) .GT. Y(K)) THEN
            I = K
         END IF
   40 CONTINUE
      IG = 1
      DO 50 K = 2, N
         IF (G(7,K) .GT. G(7,IG)) IG = K
   50 CONTINUE
      PRINT *, M, X(M)
      PRINT *, L, Y(L)
      PRINT *, I, Y(I)
      PRINT *, IG, G(7,IG)
      END
