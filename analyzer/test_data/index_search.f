C     Extremum searches that record only the index (Livermore kernel
C     24): IF (X(K) .LT. X(M)) M = K.  With a variable holding X(M) the
C     loop is a MINLOC reduction; the analysis names that variable
C     (SFV<index><n>, a name the unit does not use) and the generator
C     introduces it.  Look-alikes stay sequential: the array written in
C     the loop, the index used elsewhere in it, a comparison that keeps
C     the last of equal values, a subscript that depends on the loop
C     beside the index, a step that is not a constant.
      PROGRAM IDX
      PARAMETER (N = 50)
      REAL X(N), G(8,N), SFVM1
      INTEGER K, M, L, I, J, IS, IT, IU, IV
C EXPECT: parallel
      DO 5 K = 1, N
         X(K) = REAL(MOD(K * 7, 11))
    5 CONTINUE
C     (G defined everywhere: before, the searches over G read whatever
C     the stack held, and the sequential program printed 2 or 11 for J)
C EXPECT: parallel
      DO 7 K = 1, N
C EXPECT: parallel
         DO 6 I = 1, 8
            G(I, K) = REAL(MOD(I * 5 + K * 3, 13))
    6    CONTINUE
    7 CONTINUE
      M = 1
C EXPECT: parallel reduction(minloc:sfvm2)
      DO 24 K = 2, N
         IF (X(K) .LT. X(M)) M = K
   24 CONTINUE
      L = N
C EXPECT: parallel reduction(maxloc:sfvl1)
      DO 30 K = N - 1, 1, -1
   30 IF (X(L) .LT. X(K)) L = K
      J = 3
C EXPECT: parallel reduction(minloc:sfvj1)
      DO 35 K = 1, N
         IF (G(2,J) .GT. G(2,K)) THEN
            J = K
         END IF
   35 CONTINUE
      I = 1
C EXPECT: sequential blockers(dep,scalar)
      DO 40 K = 2, N
         IF (X(K) .LT. X(I)) I = K
         X(K) = X(K) + 1.0
   40 CONTINUE
      IS = 1
      IV = 0
C EXPECT: sequential blockers(scalar)
      DO 50 K = 2, N
         IF (X(K) .LT. X(IS)) IS = K
         IV = IV + IS
   50 CONTINUE
      IT = 1
C EXPECT: sequential blockers(scalar)
      DO 60 K = 2, N
         IF (X(K) .LE. X(IT)) IT = K
   60 CONTINUE
      IU = 1
C EXPECT: sequential blockers(scalar)
      DO 70 K = 2, 8
         IF (G(K,K) .LT. G(IU,K)) IU = K
   70 CONTINUE
      IU = 1
C EXPECT: sequential blockers(scalar)
      DO 80 K = 2, N, J
         IF (X(K) .LT. X(IU)) IU = K
   80 CONTINUE
      SFVM1 = 0.0
      PRINT *, M, L, J, I, IS, IT, IU, IV, SFVM1
      END
