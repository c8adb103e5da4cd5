C     In-place Gauss-Seidel sweeps: A(I,J) uses already updated
C     A(I-1,J), A(I,J-1) (flow, distance 1) and old A(I+1,J), A(I,J+1)
C     (anti, distance 1).  Both loops of the sweep are ACROSS.
      PROGRAM GS2D
      PARAMETER (N = 30, NIT = 5)
      REAL A(N,N), T, S
      INTEGER I, J, IT
C EXPECT: parallel
      DO 20 J = 1, N
C EXPECT: parallel
         DO 10 I = 1, N
            A(I,J) = REAL(MOD(I*7 + J*3, 11))
   10    CONTINUE
   20 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 50 IT = 1, NIT
C EXPECT: across
         DO 40 J = 2, N - 1
C EXPECT: across
            DO 30 I = 2, N - 1
               A(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1))
     &                  * 0.25
   30       CONTINUE
   40    CONTINUE
   50 CONTINUE
*     Same sweep with a scalar temporary: still ACROSS, T is private.
C EXPECT: across private(t)
      DO 70 J = 2, N - 1
C EXPECT: across private(t)
         DO 60 I = 2, N - 1
            T = A(I-1,J) + A(I+1,J)
            A(I,J) = (T + A(I,J-1) + A(I,J+1)) * 0.25
   60    CONTINUE
   70 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 90 J = 1, N
C EXPECT: parallel reduction(sum:s)
         DO 80 I = 1, N
            S = S + A(I,J) * REAL(I)
   80    CONTINUE
   90 CONTINUE
      WRITE (*, '(A, F14.5)') ' GS CHECKSUM =', S
      END
