C     A work array written at every other element and read at every
C     other element (NPB MG's RPRJ3: X1(I1-1) for I1 = 2*J1-D1, read at
C     X1(I1-1) and X1(I1+1)): what an iteration of J2 reads of X1 is
C     what it wrote first, counting every second element, so X1 is
C     private to J2. D1 is set before the loops by an IF (its value is
C     not known, but no statement in the loops changes it). Look-alike:
C     a read of the other parity, Y1(I1), which no iteration writes
C     (sequential: the analysis does not compare the two parities).
      PROGRAM STRW
      INTEGER N, M
      PARAMETER (N = 34, M = 17)
      DOUBLE PRECISION R(N,N), S(M,M), X1(N), Y1(N), T
      INTEGER I1, I2, J1, J2, D1
      D1 = 1
      IF (MOD(N, 4) .EQ. 2) D1 = 2
C EXPECT: parallel
      DO J2 = 1, N
C EXPECT: parallel
         DO J1 = 1, N
            R(J1,J2) = DBLE(MOD(J1 * 7 + J2 * 3, 13))
         END DO
         X1(J2) = 0
         Y1(J2) = J2
      END DO
C EXPECT: parallel private(i1,i2,x1)
      DO J2 = 2, M - 1
         I2 = 2*J2 - D1
C EXPECT: parallel private(i1)
         DO J1 = 2, M
            I1 = 2*J1 - D1
            X1(I1-1) = R(I1-1,I2-1) + R(I1-1,I2+1)
         END DO
C EXPECT: parallel private(i1)
         DO J1 = 2, M - 1
            I1 = 2*J1 - D1
            S(J1,J2) = 0.5D0*R(I1,I2) + 0.25D0*(X1(I1-1) + X1(I1+1))
         END DO
      END DO
C EXPECT: sequential private(i1,i2) blockers(dep)
      DO J2 = 2, M - 1
         I2 = 2*J2 - D1
C EXPECT: parallel private(i1)
         DO J1 = 2, M
            I1 = 2*J1 - D1
            Y1(I1-1) = R(I1-1,I2-1) + R(I1-1,I2+1)
         END DO
C EXPECT: parallel private(i1)
         DO J1 = 2, M - 1
            I1 = 2*J1 - D1
            S(J1,J2) = S(J1,J2) + Y1(I1)
         END DO
      END DO
      T = 0
C EXPECT: parallel reduction(sum:t)
      DO J2 = 2, M - 1
C EXPECT: parallel reduction(sum:t)
         DO J1 = 2, M - 1
            T = T + S(J1,J2) * J1
         END DO
      END DO
      PRINT *, S(5,7), S(M-1,M-1), T
      END
