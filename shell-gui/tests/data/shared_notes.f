      PROGRAM SHN
      INTEGER N
      PARAMETER (N = 200)
      DOUBLE PRECISION A(N,N), B(N,N), W(N), S, C(50)
      INTEGER I, J, IT
      DO I = 1, N
         W(I) = 1.0D0 / I
      END DO
      DO J = 1, N
         DO I = 1, N
            A(I,J) = W(I) * J
            B(I,J) = 0.0D0
         END DO
      END DO
      DO IT = 1, 10
         DO J = 2, N-1
            DO I = 2, N-1
               B(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)) / 4
            END DO
         END DO
         DO J = 2, N-1
            DO I = 2, N-1
               A(I,J) = B(I,J)
            END DO
         END DO
      END DO
      DO I = 1, 50
         C(I) = I * 0.5D0
      END DO
      S = 0
      DO J = 1, N
         DO I = 1, N
            S = S + A(I,J)
         END DO
      END DO
      PRINT *, S, C(50)
      END
