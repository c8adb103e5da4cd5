C     NPB SP/BT back substitution: a descending loop whose start is an
C     element of an array the unit never changes (grid_points), and
C     subscripts through scalars set from the loop variable first
C     (I1 = I + 1). The dependence test takes G(1) as a symbol and I1 as
C     I + 1: the K and J loops are parallel, the I loop carries the
C     flow dependences of distance 1 and 2 (ACROSS). In SHIFT, IP is set
C     after the read, from the previous iteration: it is not I + 1.
      PROGRAM BACKS
      INTEGER N
      PARAMETER (N = 6)
      INTEGER G(3), I, J, K, M
      DOUBLE PRECISION R(3,0:N,0:N,0:N), C(0:N,0:N,0:N,2), S
      G(1) = N
      G(2) = N - 1
      G(3) = N
C EXPECT: parallel
      DO 40 K = 0, N
C EXPECT: parallel
         DO 30 J = 0, N
C EXPECT: parallel
            DO 20 I = 0, N
               C(I,J,K,1) = 1.0D0 / (I + J + K + 2)
               C(I,J,K,2) = 0.5D0 / (I + 2 * J + K + 3)
C EXPECT: parallel
               DO 10 M = 1, 3
                  R(M,I,J,K) = M + I - J + 0.1D0 * K
   10          CONTINUE
   20       CONTINUE
   30    CONTINUE
   40 CONTINUE
      CALL BACK(R, C, G, N)
      CALL SHIFT(R, N)
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 70 K = 0, N
C EXPECT: parallel reduction(sum:s)
         DO 60 J = 0, N
C EXPECT: parallel reduction(sum:s)
            DO 50 I = 0, N
               S = S + R(1,I,J,K) + 2 * R(2,I,J,K) + 3 * R(3,I,J,K)
   50       CONTINUE
   60    CONTINUE
   70 CONTINUE
      WRITE (*, '(A, F24.12)') ' S =', S
      END

      SUBROUTINE BACK(R, C, G, N)
      INTEGER N, G(3), I, J, K, M, I1, I2
      DOUBLE PRECISION R(3,0:N,0:N,0:N), C(0:N,0:N,0:N,2)
C EXPECT: parallel private(i1,i2)
      DO 40 K = 1, G(3) - 2
C EXPECT: parallel private(i1,i2)
         DO 30 J = 1, G(2) - 2
C EXPECT: across private(i1,i2)
            DO 20 I = G(1) - 3, 0, -1
               I1 = I + 1
               I2 = I + 2
C EXPECT: parallel
               DO 10 M = 1, 3
                  R(M,I,J,K) = R(M,I,J,K) - C(I,J,K,1) * R(M,I1,J,K)
     &                       - C(I,J,K,2) * R(M,I2,J,K)
   10          CONTINUE
   20       CONTINUE
   30    CONTINUE
   40 CONTINUE
      END

      SUBROUTINE SHIFT(R, N)
      INTEGER N, I, IP
      DOUBLE PRECISION R(3,0:N,0:N,0:N)
      IP = 1
C EXPECT: sequential blockers(scalar,dep)
      DO 10 I = 1, N
         R(1,IP,1,1) = R(1,IP,1,1) + R(2,I,1,1)
         IP = I + 1
   10 CONTINUE
      END
