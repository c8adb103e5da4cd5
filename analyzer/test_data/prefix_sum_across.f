C     Recurrences with constant dependence distances: ACROSS loops.
C     A(I) = A(I-1) + B(I) is a prefix sum (flow, distance 1); the
C     second-order recurrence has distances 1 and 2; the backward loop
C     with a negative step reads the element written one iteration
C     before (flow, distance 1 in iteration order).
      PROGRAM PREFIX
      PARAMETER (N = 20)
      REAL A(N), B(N), C(N)
      INTEGER I
C EXPECT: parallel
      DO 10 I = 1, N
         B(I) = REAL(I)
         A(I) = 0.0
         C(I) = REAL(N - I) * 0.1
   10 CONTINUE
      A(1) = B(1)
C EXPECT: across
      DO 20 I = 2, N
         A(I) = A(I-1) + B(I)
   20 CONTINUE
C EXPECT: across
      DO 30 I = 3, N
         C(I) = C(I-1) * 0.5 + C(I-2) * 0.25
   30 CONTINUE
C EXPECT: across
      DO 40 I = N - 1, 1, -1
         B(I) = B(I+1) + B(I)
   40 CONTINUE
      WRITE (*, 100) A(N), C(N), B(1)
  100 FORMAT (' A(N) =', F10.3, '  C(N) =', F10.5, '  B(1) =', F10.3)
      END
