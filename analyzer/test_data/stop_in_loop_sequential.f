C     STOP inside a loop, and RETURN inside a loop of a subroutine:
C     blocker stop (also for the outer loop when it is in an inner
C     loop).  The conditions never hold at run time.
      PROGRAM STOPLP
      PARAMETER (N = 8, M = 3)
      REAL A(N), B(N), C(N,M)
      INTEGER I, J, IERR
C EXPECT: parallel
      DO 5 I = 1, N
         A(I) = REAL(I) * 2.0
    5 CONTINUE
C EXPECT: sequential blockers(stop)
      DO 10 I = 1, N
         IF (A(I) .LT. 0.0) STOP
         B(I) = SQRT(A(I))
   10 CONTINUE
C EXPECT: sequential blockers(stop)
      DO 30 J = 1, M
C EXPECT: sequential blockers(stop)
         DO 20 I = 1, N
            C(I,J) = B(I) * REAL(J)
            IF (C(I,J) .NE. C(I,J)) STOP
   20    CONTINUE
   30 CONTINUE
      CALL CHECK(B, N, IERR)
      WRITE (*, '(A, I2, F10.4)') ' IERR, C(N,M) =', IERR, C(N,M)
      END

      SUBROUTINE CHECK(X, N, IERR)
      INTEGER N, IERR, I
      REAL X(N)
      IERR = 1
C EXPECT: sequential blockers(stop)
      DO 10 I = 1, N
         IF (X(I) .GT. 100.0) RETURN
   10 CONTINUE
      IERR = 0
      END
