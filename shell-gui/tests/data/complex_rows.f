C     NPB FT's initial conditions in small: each plane K of U is filled row
C     by row from a generator whose seed for K was computed first. FILL sees
C     the DOUBLE COMPLEX row TMP as DOUBLE PRECISION Y(2*N1); TMP is private
C     to each K, and X0 carries the state along J only.
      PROGRAM CROWS
      INTEGER N1, N2, N3
      PARAMETER (N1 = 16, N2 = 12, N3 = 40)
      DOUBLE COMPLEX U(N1,N2,N3), TMP(N1), S
      DOUBLE PRECISION ST(N3), X0, A
      INTEGER I, J, K, IT
      A = 12207.0D0
      X0 = 3141.0D0
      DO 5 K = 1, N3
         X0 = MOD(X0 * 5.0D0 + A, 65536.0D0)
         ST(K) = X0 / 65536.0D0
    5 CONTINUE
      DO 30 K = 1, N3
         X0 = ST(K) * 65536.0D0
         DO 20 J = 1, N2
            CALL FILL(2*N1, X0, A, TMP)
            DO 10 I = 1, N1
               U(I,J,K) = TMP(I)
   10       CONTINUE
   20    CONTINUE
   30 CONTINUE
      DO 60 IT = 1, 3
         DO 50 K = 2, N3 - 1
            DO 40 J = 1, N2
               DO 40 I = 1, N1
                  U(I,J,K) = U(I,J,K) * (0.5D0, 0.25D0) + DBLE(IT)
   40       CONTINUE
   50    CONTINUE
   60 CONTINUE
      S = (0.0D0, 0.0D0)
      DO 70 K = 1, N3
         DO 70 J = 1, N2
            DO 70 I = 1, N1
               S = S + U(I,J,K) * DBLE(I + J + K)
   70 CONTINUE
      WRITE (*, '(2F20.6)') S
      END
