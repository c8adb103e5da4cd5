C     In-place Gauss-Seidel (successive over-relaxation) on a 2-D grid.
C     Each sweep updates A(I,J) from the new A(I-1,J), A(I,J-1) and the
C     old A(I+1,J), A(I,J+1): a loop nest with regular dependences of
C     distance 1 in both dimensions (ACROSS), which also reduces the
C     largest change EPS.  Prints EPS every 40 sweeps and a checksum.
      PROGRAM GS
      PARAMETER (L = 200, ITMAX = 200, W = 1.5)
      DOUBLE PRECISION A(L,L), EPS, S, OLD
      INTEGER I, J, IT
C     initial guess 0 inside, boundary values vary along the edges
      DO 20 J = 1, L
         DO 10 I = 1, L
            IF (I.EQ.1 .OR. J.EQ.1 .OR. I.EQ.L .OR. J.EQ.L) THEN
               A(I,J) = DBLE(I) / DBLE(L) + 2.0D0 * DBLE(J) / DBLE(L)
            ELSE
               A(I,J) = 0.0D0
            END IF
   10    CONTINUE
   20 CONTINUE
      DO 50 IT = 1, ITMAX
         EPS = 0.0D0
         DO 40 J = 2, L - 1
            DO 30 I = 2, L - 1
               OLD = A(I,J)
               A(I,J) = (W / 4.0D0) * (A(I-1,J) + A(I+1,J) + A(I,J-1)
     &                  + A(I,J+1)) + (1.0D0 - W) * OLD
               EPS = MAX(EPS, ABS(A(I,J) - OLD))
   30       CONTINUE
   40    CONTINUE
         IF (MOD(IT, 40) .EQ. 0) WRITE (*, 100) IT, EPS
   50 CONTINUE
      S = 0.0D0
      DO 70 J = 1, L
         DO 60 I = 1, L
            S = S + A(I,J)
   60    CONTINUE
   70 CONTINUE
      WRITE (*, 110) S, A(L/2, L/2), A(10, L-10)
  100 FORMAT (' IT =', I4, '   EPS =', F14.10)
  110 FORMAT (' CHECKSUM =', F16.6, '   A(MID) =', F12.8,
     &        '   A(10,L-10) =', F12.8)
      END
