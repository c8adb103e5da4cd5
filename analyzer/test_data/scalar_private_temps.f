C     Scalar temporaries that are assigned before they are read in
C     every iteration (on every path) are private; the loops are
C     parallel.  None of the temporaries is used after its loop.
      PROGRAM SCPRIV
      PARAMETER (N = 10, M = 4)
      REAL A(N), B(N), C(N), D(N), E(N,M), T, U, R, W, S
      INTEGER I, J
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(I) * 0.75
         B(I) = REAL(N - I)
         D(I) = 1.0
    5 CONTINUE
C EXPECT: parallel private(t,u)
      DO 10 I = 1, N
         T = A(I) * 2.0
         U = T + B(I)
         C(I) = T * U
   10 CONTINUE
*     assigned on both branches of an IF before the read
C EXPECT: parallel private(r)
      DO 20 I = 1, N
         IF (A(I) .GT. 3.0) THEN
            R = A(I) - 3.0
         ELSE
            R = 3.0 - A(I)
         END IF
         D(I) = R * R
   20 CONTINUE
*     the same temporary reused twice in one iteration
C EXPECT: parallel private(t)
      DO 30 I = 1, N
         T = A(I) + 1.0
         C(I) = C(I) + T
         T = B(I) - 1.0
         D(I) = D(I) + T
   30 CONTINUE
C EXPECT: parallel
      DO 45 J = 1, M
C EXPECT: parallel
         DO 40 I = 1, N
            E(I,J) = REAL(I + J)
   40    CONTINUE
   45 CONTINUE
C EXPECT: parallel private(t)
      DO 55 J = 1, M
C EXPECT: parallel private(t)
         DO 50 I = 1, N
            T = E(I,J) * 0.5
            E(I,J) = T * T + T
   50    CONTINUE
   55 CONTINUE
*     W is private to the J loop and only read by the I loop
C EXPECT: parallel private(w)
      DO 65 J = 1, M
         W = REAL(J) * 0.1
C EXPECT: parallel
         DO 60 I = 1, N
            E(I,J) = E(I,J) + W
   60    CONTINUE
   65 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 75 J = 1, M
C EXPECT: parallel reduction(sum:s)
         DO 70 I = 1, N
            S = S + E(I,J) + C(I) + D(I)
   70    CONTINUE
   75 CONTINUE
      WRITE (*, '(A, F14.4)') ' S =', S
      END
