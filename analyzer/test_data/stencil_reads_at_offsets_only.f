C     An array (SQ) read in the nests of the template (U) only at J-1 and J+1, a stencil:
C     it aligns with U at J, not at J-1 or J+1. Aligned at a neighbour, the nest that
C     writes SQ(I,J) and R(I,J) (R aligns with U at J) would write at a neighbour's element
C     and the (*,BLOCK) variant the DISTRIBUTE hint asks for would be rejected.
C     The data are multiples of 1/64: every order of the sum gives the same bits.
      PROGRAM STENSQ
      INTEGER N
      PARAMETER (N = 40)
C$SPF DISTRIBUTE U(*,BLOCK)
      DOUBLE PRECISION U(N,N), SQ(N,N), R(N,N), T
      INTEGER I, J, K
C EXPECT: parallel
      DO 10 J = 1, N
C EXPECT: parallel
         DO 10 I = 1, N
            U(I,J) = I + 2 * J
            R(I,J) = 0.0
            SQ(I,J) = 0.0
   10 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 40 K = 1, 3
C EXPECT: parallel
         DO 20 J = 1, N
C EXPECT: parallel
            DO 20 I = 1, N
               SQ(I,J) = R(I,J) * 2 + K
               R(I,J) = R(I,J) / 2
   20    CONTINUE
C EXPECT: parallel
         DO 30 J = 2, N - 1
C EXPECT: parallel
            DO 30 I = 2, N - 1
               U(I,J) = U(I,J) + (SQ(I,J+1) - SQ(I,J-1)) / 64
   30    CONTINUE
C EXPECT: parallel
         DO 35 J = 2, N - 1
C EXPECT: parallel
            DO 35 I = 2, N - 1
               R(I,J) = R(I,J) + (U(I,J) - U(I,J) / 2)
   35    CONTINUE
C EXPECT: parallel
         DO 38 J = 1, N
C EXPECT: parallel
            DO 38 I = 1, N
               U(I,J) = U(I,J) - U(I,J) / 4
   38    CONTINUE
   40 CONTINUE
      T = 0.0
C EXPECT: parallel reduction(sum:t)
      DO 50 J = 1, N
C EXPECT: parallel reduction(sum:t)
         DO 50 I = 1, N
            T = T + U(I,J)
   50 CONTINUE
      WRITE (*, '(A, F20.6)') 'SUM U = ', T
      WRITE (*, '(A, 3F14.6)') 'U = ', U(2,2), U(20,21), U(39,39)
      END
