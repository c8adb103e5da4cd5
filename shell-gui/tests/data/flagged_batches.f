C     Batches (NPB EP's shape) whose timer calls run only when the file
C     timing.flag exists: TSTART and TSTOP count calls in COMMON /TCK/,
C     so the batch loop is parallel only when .NOT. TIMING holds where
C     it starts. Its statements carry labels (a search that jumps out
C     of its loop, a nest sharing its terminal statement, an arithmetic
C     IF), which the second copy of the loop must define anew. The work
C     array X and the histogram Q live in COMMON (as in EP) but FILL gets
C     X as an argument: threads need no THREADPRIVATE block for it. The
C     progress line written only when timing is on keeps no process from
C     dividing the batches when it is off.
      PROGRAM BATCH
      INTEGER NB, NK
      PARAMETER (NB = 64, NK = 4000)
      LOGICAL TIMING
      INTEGER K, I, J, L, M, IOS, KK
      DOUBLE PRECISION X, Q, SX, T
      INTEGER NCALL
      COMMON /TCK/ NCALL(3)
      COMMON /STORE/ X(NK), Q(0:9)
      OPEN(UNIT=2, FILE='timing.flag', STATUS='OLD', IOSTAT=IOS)
      IF (IOS .EQ. 0) THEN
         TIMING = .TRUE.
         CLOSE(2)
      ELSE
         TIMING = .FALSE.
      ENDIF
      DO 5 I = 1, 3
         NCALL(I) = 0
    5 CONTINUE
      DO 10 L = 0, 9
         Q(L) = 0
   10 CONTINUE
      SX = 0
      DO 150 K = 1, NB
         KK = K
         DO 120 I = 1, 20
            IF (KK .LE. 1) GOTO 130
            KK = KK / 2
  120    CONTINUE
  130    CONTINUE
         IF (TIMING) CALL TSTART(1)
         CALL FILL(NK, KK + K, X)
         IF (TIMING) CALL TSTOP(1)
         IF (TIMING .AND. MOD(K, 16) .EQ. 0) WRITE(*,*) 'batch', K
         DO 140 J = 1, NK / 2
            DO 140 I = 1, 2
               T = X(2*(J-1)+I)
               L = MOD(INT(T), 10)
               IF (L - 5) 135, 136, 136
  135          Q(L) = Q(L) + 1
               GOTO 140
  136          SX = SX + L
  140    CONTINUE
  150 CONTINUE
      WRITE(*,'(10F8.0)') (Q(M), M = 0, 9)
      WRITE(*,'(F12.0)') SX
      IF (TIMING) WRITE(*,*) 'timer calls', NCALL(1), NCALL(2)
      END

      SUBROUTINE FILL(N, SEED, X)
      INTEGER N, SEED, I
      DOUBLE PRECISION X(N)
      DO I = 1, N
         X(I) = DBLE(MOD(SEED * 37 + I * 11, 97))
      END DO
      END

      SUBROUTINE TSTART(I)
      INTEGER NCALL, I
      COMMON /TCK/ NCALL(3)
      NCALL(I) = NCALL(I) + 1
      END

      SUBROUTINE TSTOP(I)
      INTEGER NCALL, I
      COMMON /TCK/ NCALL(3)
      NCALL(I+1) = NCALL(I+1) + 1
      END
