C     Loops with steps.  With step 2, A(I+1) = A(I) writes even and
C     reads odd elements: no dependence, parallel.  B(2*I) = B(2*I-1)
C     likewise.  C(I) = C(I-2) with step 2 reads what the previous
C     iteration wrote: across.  With step -1, D(I) = D(I-1) reads an
C     element that the NEXT iteration overwrites: anti, across.
      PROGRAM STRIDE
      PARAMETER (N = 12)
      REAL A(N), B(N), C(N), D(N), S
      INTEGER I
C EXPECT: parallel
      DO 10 I = 1, N
         A(I) = REAL(I)
         B(I) = REAL(I) * 0.5
         C(I) = 1.0
         D(I) = REAL(MOD(I, 4))
   10 CONTINUE
C EXPECT: parallel
      DO 20 I = 1, N - 1, 2
         A(I+1) = A(I) * 2.0
   20 CONTINUE
C EXPECT: parallel
      DO 30 I = 1, N / 2
         B(2*I) = B(2*I - 1) + 1.0
   30 CONTINUE
C EXPECT: across
      DO 40 I = 3, N, 2
         C(I) = C(I-2) + 1.0
   40 CONTINUE
C EXPECT: across
      DO 50 I = N, 2, -1
         D(I) = D(I-1) + 1.0
   50 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 60 I = 1, N
         S = S + A(I) + B(I) * 2.0 + C(I) * 3.0 + D(I) * 4.0
   60 CONTINUE
      WRITE (*, '(A, F10.2)') ' S =', S
      END
