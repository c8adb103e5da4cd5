C     Calls inside parallel loops whose side effects stay inside the
C     iteration: SET writes only its first argument (the actual is
C     A(I)); SETC takes I and writes C(I) of a COMMON array; ROWSET
C     writes R(1:N) of its dummy, which is column J of E because the
C     actual argument is E(1,J).
      PROGRAM CALLEL
      PARAMETER (N = 10, M = 4)
      REAL A(N), B(N), E(N,M), X, S
      COMMON /ARR/ C(N), D(N)
      INTEGER I, J
C EXPECT: parallel
      DO 10 I = 1, N
         B(I) = REAL(I)
         D(I) = REAL(2 * I)
   10 CONTINUE
C EXPECT: parallel private(x)
      DO 20 I = 1, N
         X = B(I) + 1.0
         CALL SET(A(I), X)
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, N
         CALL SETC(I)
   30 CONTINUE
C EXPECT: parallel
      DO 40 J = 1, M
         CALL ROWSET(E(1,J), N, REAL(J))
   40 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 50 I = 1, N
         S = S + A(I) + C(I) + E(I,M)
   50 CONTINUE
      WRITE (*, '(A, F12.3)') ' S =', S
      END

      SUBROUTINE SET(Y, X)
      REAL Y, X
      Y = X * X - 1.0
      END

      SUBROUTINE SETC(I)
      PARAMETER (N = 10)
      COMMON /ARR/ C(N), D(N)
      INTEGER I
      C(I) = D(I) * 0.5 + REAL(I)
      END

      SUBROUTINE ROWSET(R, N, V)
      INTEGER N, I
      REAL R(N), V
C EXPECT: parallel
      DO 10 I = 1, N
         R(I) = V + REAL(I) * 0.1
   10 CONTINUE
      END
