C     A 400x400 array computed, then written element by element with
C     list-directed WRITE in a loop (issue 18's fourth program, written
C     for bench/issue18.sh).
      PROGRAM WLOOP
      PARAMETER (N = 400)
      DOUBLE PRECISION A(N,N)
      DO 10 J = 1, N
      DO 10 I = 1, N
         A(I,J) = SQRT(DBLE(I)) + DBLE(J) / 3.0D0
   10 CONTINUE
      DO 20 J = 2, N
      DO 20 I = 1, N
         A(I,J) = 0.5D0 * (A(I,J) + A(I,J-1))
   20 CONTINUE
      OPEN (1, FILE = 'wloop.out')
      DO 30 J = 1, N
      DO 30 I = 1, N
         WRITE (1, *) A(I,J)
   30 CONTINUE
      CLOSE (1)
      WRITE (6, *) 'DONE', A(N,N)
      END
