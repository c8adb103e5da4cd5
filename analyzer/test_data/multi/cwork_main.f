C     (with cwork_fill.f, compiled apart: gfortran refuses the type
C     mismatch within one file)
C     NPB FT's initial conditions: a DOUBLE COMPLEX work row filled by a
C     procedure that sees it as DOUBLE PRECISION Y(N) with N = 2*N1 (two reals
C     per complex element), then copied into plane K. The call surely writes
C     TMP(1:N1), all the copy reads, so TMP is private to each K. The seed X0
C     is set from ST(K) first in each K: private too. In J, X0 carries the
C     generator's state from one row to the next: sequential.
      PROGRAM CWORK
      INTEGER N1, N2, N3
      PARAMETER (N1 = 16, N2 = 8, N3 = 6)
      DOUBLE COMPLEX U(N1,N2,N3), TMP(N1), W(N1), S
      DOUBLE PRECISION ST(N3), X0, A
      INTEGER I, J, K
      A = 12207.0D0
      DO 5 K = 1, N3
         ST(K) = 3141.0D0 + 7 * K
    5 CONTINUE
C     (parallel, TMP and X0 private)
      DO 30 K = 1, N3
         X0 = ST(K)
C     (sequential: X0)
         DO 20 J = 1, N2
            CALL FILL(2*N1, X0, A, TMP)
            DO 10 I = 1, N1
               U(I,J,K) = TMP(I)
   10       CONTINUE
   20    CONTINUE
   30 CONTINUE
C     Given N1 reals only, FILL writes W(1:N1/2), and the copy reads W(N1)
C     as the previous K left it: sequential.
      DO 32 I = 1, N1
         W(I) = I
   32 CONTINUE
C     (sequential: W)
      DO 35 K = 1, N3
         X0 = ST(K)
         CALL FILL(N1, X0, A, W)
         DO 34 I = 1, N1
            U(I,1,K) = U(I,1,K) + W(I)
   34    CONTINUE
         W(N1) = W(N1) + U(1,1,K)
   35 CONTINUE
      S = (0.0D0, 0.0D0)
      DO 40 K = 1, N3
         S = S + U(K,K,K) + U(N1,N2,K)
   40 CONTINUE
      PRINT *, S
      END
