C     Function references in loop bodies.  F is an external function
C     given below that only computes from its argument; H is a
C     statement function; SQRT/SIN are intrinsics: all parallel.  G
C     counts its calls in a COMMON variable, so its references
C     conflict between iterations: blocker call.
      PROGRAM PUREF
      PARAMETER (N = 10)
      REAL A(N), B(N), C(N), D(N), S
      REAL F, G, H
      INTEGER I, NCALL
      COMMON /CNT/ NCALL
      H(X) = 2.0 * X + 1.0
      NCALL = 0
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I) * 0.5
   10 CONTINUE
C EXPECT: parallel
      DO 20 I = 1, N
         B(I) = F(A(I)) + SQRT(A(I))
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, N
         C(I) = H(A(I)) * B(I)
   30 CONTINUE
C EXPECT: sequential blockers(call)
      DO 40 I = 1, N
         D(I) = G(A(I))
   40 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 50 I = 1, N
         S = S + B(I) + C(I) + D(I)
   50 CONTINUE
      WRITE (*, '(A, F12.4, I4)') ' S, NCALL =', S, NCALL
      END

      REAL FUNCTION F(X)
      REAL X
      F = X * X + SIN(X)
      END

      REAL FUNCTION G(X)
      REAL X
      INTEGER NCALL
      COMMON /CNT/ NCALL
      NCALL = NCALL + 1
      G = X + REAL(NCALL)
      END
