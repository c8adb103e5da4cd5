C     Small work arrays that every iteration fills before it reads
C     them: a local T(3) filled by an inner loop, and a COMMON scratch
C     array W(4) (typical legacy style) filled element by element.
C     Neither is read after the loop, so both are private and the
C     outer loops are parallel.
      PROGRAM PWORK
      PARAMETER (N = 8)
      REAL A(3,N), B(N), C(N), D(N), T(3), S, TOT
      REAL W
      COMMON /SCR/ W(4)
      INTEGER I, K
C EXPECT: parallel
      DO 20 I = 1, N
C EXPECT: parallel
         DO 10 K = 1, 3
            A(K,I) = REAL(K * I) * 0.5
   10    CONTINUE
   20 CONTINUE
C EXPECT: parallel private(t)
      DO 40 I = 1, N
C EXPECT: parallel
         DO 30 K = 1, 3
            T(K) = A(K,I) * 2.0
   30    CONTINUE
         B(I) = T(1) + T(2) * T(3)
   40 CONTINUE
C EXPECT: parallel private(w)
      DO 50 I = 1, N
         W(1) = A(1,I)
         W(2) = A(2,I)
         W(3) = W(1) + W(2)
         W(4) = W(3) * A(3,I)
         C(I) = W(4) - W(1)
   50 CONTINUE
C EXPECT: parallel private(t,s)
      DO 80 I = 1, N
C EXPECT: parallel
         DO 60 K = 1, 3
            T(K) = A(K,I) ** 2
   60    CONTINUE
         S = 0.0
C EXPECT: parallel reduction(sum:s)
         DO 70 K = 1, 3
            S = S + T(K)
   70    CONTINUE
         D(I) = SQRT(S)
   80 CONTINUE
      TOT = 0.0
C EXPECT: parallel reduction(sum:tot)
      DO 90 I = 1, N
         TOT = TOT + B(I) + C(I) + D(I)
   90 CONTINUE
      WRITE (*, '(A, F12.4)') ' TOTAL =', TOT
      END
