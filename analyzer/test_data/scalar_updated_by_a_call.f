C     A local scalar set at the top of each iteration and then updated by a
C     call through its argument (issue 17: x = s(k); call step(x); r(k) = x)
C     holds this iteration's value only: it is private and loop K parallel.
C     Without the first assignment (loop 20) the call reads the value of the
C     previous iteration: sequential. Y is assigned in every iteration and
C     read after the loop: its last value is needed (loop 30 sequential).
      PROGRAM SUPDC
      INTEGER N, K
      PARAMETER (N = 20)
      DOUBLE PRECISION S(N), R(N), X, Y, Z
      DO 5 K = 1, N
         S(K) = K * 0.5D0
    5 CONTINUE
C EXPECT: parallel private(x)
      DO 10 K = 1, N
         X = S(K)
         CALL STEP(X)
         R(K) = X
   10 CONTINUE
      Z = 1.0D0
C EXPECT: sequential blockers(call)
      DO 20 K = 1, N
         CALL STEP(Z)
         R(K) = R(K) + Z
   20 CONTINUE
C EXPECT: sequential blockers(scalar)
      DO 30 K = 1, N
         Y = S(K)
         CALL STEP(Y)
         R(K) = R(K) + Y
   30 CONTINUE
      WRITE (*, *) R(1), R(N), Z, Y
      END

      SUBROUTINE STEP(X)
      DOUBLE PRECISION X
      X = X * 2.0D0 + 1.0D0
      END
