C     Jacobi relaxation on a 2-D grid: the stencil reads A and writes
C     a separate array B, so both loops of every nest are parallel.
C     The time loop carries A and B from one step to the next and
C     prints, so it stays sequential.
      PROGRAM STJAC
      PARAMETER (N = 40, NSTEP = 10)
      REAL A(N,N), B(N,N), EPS, S
      INTEGER I, J, IT
C EXPECT: parallel
      DO 20 J = 1, N
C EXPECT: parallel
         DO 10 I = 1, N
            A(I,J) = 0.0
            IF (I.EQ.1 .OR. J.EQ.1 .OR. I.EQ.N .OR. J.EQ.N) THEN
               B(I,J) = 0.0
            ELSE
               B(I,J) = 1.0 + REAL(I + J)
            END IF
   10    CONTINUE
   20 CONTINUE
C EXPECT: sequential blockers(dep,io)
      DO 60 IT = 1, NSTEP
         EPS = 0.0
C EXPECT: parallel reduction(max:eps)
         DO 40 J = 2, N - 1
C EXPECT: parallel reduction(max:eps)
            DO 30 I = 2, N - 1
               EPS = MAX(EPS, ABS(B(I,J) - A(I,J)))
               A(I,J) = B(I,J)
   30       CONTINUE
   40    CONTINUE
C EXPECT: parallel
         DO 50 J = 2, N - 1
C EXPECT: parallel
            DO 45 I = 2, N - 1
               B(I,J) = (A(I-1,J) + A(I+1,J) +
     &                   A(I,J-1) + A(I,J+1)) * 0.25
   45       CONTINUE
   50    CONTINUE
         PRINT 100, IT, EPS
   60 CONTINUE
      S = 0.0
C EXPECT: parallel reduction(sum:s)
      DO 80 J = 1, N
C EXPECT: parallel reduction(sum:s)
         DO 70 I = 1, N
            S = S + B(I,J)
   70    CONTINUE
   80 CONTINUE
      PRINT 110, S
  100 FORMAT (' IT =', I3, '  EPS =', F12.5)
  110 FORMAT (' CHECKSUM =', F14.4)
      END
