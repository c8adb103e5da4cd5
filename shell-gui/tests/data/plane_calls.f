C     Planes of a 3-D array given to a procedure as 2-D arrays whose
C     sizes the procedure gets as arguments (CALL PLANE(A(1,1,K), N1,
C     N2, K) with A(N1,N2,N3) and X(M1,M2)): loop K is parallel, also
C     from the second column on. A distribution of the planes keeps
C     each call's plane on its owner.
      PROGRAM PLANES
      INTEGER N1, N2, N3
      PARAMETER (N1 = 40, N2 = 30, N3 = 16)
      DOUBLE PRECISION A(N1, N2, N3), S
      INTEGER I, J, K
      DO 10 K = 1, N3
         DO 10 J = 1, N2
            DO 10 I = 1, N1
               A(I, J, K) = MOD(I + 10 * J + 100 * K, 97)
   10 CONTINUE
      CALL DRIVE(A, N1, N2, N3)
      S = 0
      DO 20 K = 1, N3
         DO 20 J = 1, N2
            DO 20 I = 1, N1
               S = S + A(I, J, K) * MOD(I + J + K, 7)
   20 CONTINUE
      WRITE(*, '(F24.6)') S
      WRITE(*, '(3F16.6)') A(1, 1, 1), A(N1, N2, N3), A(N1, 1, 2)
      END

      SUBROUTINE DRIVE(A, N1, N2, N3)
      INTEGER N1, N2, N3, K
      DOUBLE PRECISION A(N1, N2, N3)
      DO 10 K = 1, N3
         CALL PLANE(A(1, 1, K), N1, N2, K)
   10 CONTINUE
      DO 20 K = 1, N3
         CALL PLANE(A(1, 2, K), N1, N2 - 1, K)
   20 CONTINUE
      END

      SUBROUTINE PLANE(X, M1, M2, K)
      INTEGER M1, M2, K, I, J
      DOUBLE PRECISION X(M1, M2)
      DO 10 J = 1, M2
         DO 10 I = 2, M1
            X(I, J) = X(I - 1, J) * 0.5D0 + MOD(K + J, 5)
   10 CONTINUE
      END
