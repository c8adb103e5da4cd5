C     Scalars carried between iterations only by statements that update
C     them from themselves (random-number seeds): the loop is parallel
C     once their values are computed ahead, in a sequential copy of the
C     loop made of those statements alone, when the rest of the body has
C     work worth dividing (a loop, a call). Not so when the recurrence is
C     all the loop does, the update reads what the loop computes, the
C     scalar is in COMMON, another scalar the update sets is used after
C     the loop, the loop changes its own bound, or the update has a label.
      PROGRAM RECUR
      INTEGER N, M
      PARAMETER (N = 50, M = 40)
      INTEGER*8 X0, X1, P, Y, C
      DOUBLE PRECISION U(N, M), V(M), T, R, NEXT, Z
      INTEGER I, J, M2
      COMMON /SEED/ C
      P = 2147483647
      X0 = 4711
C EXPECT: sequential blockers(scalar) when[] vprivate(x0,x1) split(x0)
      DO J = 1, M
         X1 = X0
C EXPECT: sequential blockers(scalar)
         DO I = 1, N
            X1 = MOD(X1 * 16807, P)
            U(I, J) = DBLE(X1) / DBLE(P)
         END DO
         X0 = MOD(X0 * 48271, P)
      END DO
C     the new value is read after the update: the parallel loop runs
C     the update too, from the value the iteration starts with
      Y = 17
C EXPECT: sequential blockers(scalar) when[] vprivate(y) split(y)
      DO J = 1, M
         Y = MOD(Y * 48271, P)
C EXPECT: parallel
         DO I = 1, N
            U(I, J) = U(I, J) + DBLE(Y) / DBLE(P) * I
         END DO
      END DO
C     all the loop does is the recurrence (the split would run it twice)
      Y = 17
C EXPECT: sequential blockers(scalar)
      DO J = 1, M
         Y = MOD(Y * 48271, P)
         V(J) = DBLE(Y) / DBLE(P)
      END DO
C     the update reads what the iteration computed
      Y = 17
C EXPECT: sequential blockers(scalar)
      DO J = 1, M
         T = U(1, J) * 3
         V(J) = DBLE(Y)
         Y = MOD(Y * 48271 + INT(T), P)
      END DO
C     a seed in COMMON
      C = 5
C EXPECT: sequential blockers(scalar)
      DO J = 1, M
         V(J) = DBLE(C) / DBLE(P)
         C = MOD(C * 48271, P)
      END DO
C     a function advancing its argument; R is used after the loop
      Z = 99.0D0
C EXPECT: sequential blockers(call,scalar)
      DO J = 1, M
         V(J) = Z
         R = NEXT(Z)
      END DO
      PRINT *, R
C     the same with R dead after the loop, and work beside: split
      Z = 99.0D0
C EXPECT: sequential blockers(call) when[] vprivate(z,r) split(z)
      DO J = 1, M
C EXPECT: parallel
         DO I = 1, N
            U(I, J) = U(I, J) + Z * I
         END DO
         R = NEXT(Z)
      END DO
C     the loop changes the variable of its bound
      M2 = M
      Y = 17
C EXPECT: sequential blockers(scalar)
      DO J = 1, M2
         V(J) = DBLE(Y)
         Y = MOD(Y * 48271, P)
         M2 = M2 + 0
      END DO
C     the update has a label (the copy ahead would define it twice)
      Y = 17
C EXPECT: sequential blockers(scalar)
      DO J = 1, M
         V(J) = DBLE(Y)
   50    Y = MOD(Y * 48271, P)
      END DO
      PRINT *, U(3, 4), V(7), X0, Y, C, Z
      END

      DOUBLE PRECISION FUNCTION NEXT(X)
      DOUBLE PRECISION X
      X = MOD(X * 16807.0D0, 2147483647.0D0)
      NEXT = X
      END
