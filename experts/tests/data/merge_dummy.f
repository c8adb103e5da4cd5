C     A loop over planes that only the small array RS of starting
C     values can distribute (NPB FT's COMPUTE_INITIAL_CONDITIONS): the
C     field it fills is U, a dummy of adjustable size that both calls
C     bind to the main program's X(64,64,32) (which TOTAL's vector
C     view from its first element keeps from being distributed). Divided between
C     processes, each must send the others its planes of X after the
C     loop: the whole of X (1 MB), not 1,000 elements of unknown size.
      PROGRAM MRGDUM
      INTEGER N1, N2, N3
      PARAMETER (N1 = 64, N2 = 64, N3 = 32)
      DOUBLE PRECISION X(N1, N2, N3), RS(N3), S
      INTEGER K, IT
      DO 5 K = 1, N3
         RS(K) = K * 0.5D0
    5 CONTINUE
      S = 0
      DO 20 IT = 1, 2
         CALL FILL(X, RS, N1, N2, N3)
         CALL TOTAL(X(1,1,1), N1 * N2 * N3, S)
         RS(1) = MOD(S, 7.0D0)
   20 CONTINUE
      PRINT *, S
      END

      SUBROUTINE FILL(U, RS, D1, D2, D3)
      INTEGER D1, D2, D3, I, J, K
      DOUBLE PRECISION U(D1, D2, D3), RS(D3), T
      DO 30 K = 1, D3
         T = RS(K)
         DO 30 J = 1, D2
            DO 30 I = 1, D1
               T = MOD(T * 1.5D0 + I, 97.0D0)
               U(I, J, K) = T + J
   30 CONTINUE
      END

C     X seen as a vector: it cannot be distributed as the matrix it is
      SUBROUTINE TOTAL(V, N, S)
      INTEGER N, I
      DOUBLE PRECISION V(N), S
      DO 40 I = 1, N
         S = S + V(I) * MOD(I, 5)
   40 CONTINUE
      END
