C     Columns smoothed by a procedure that times itself when the file
C     timers.flag exists (NPB FT's SWARZTRAUBER: the flag is a logical
C     in COMMON tested inside the procedure, not in the loop). TSTART
C     and TSTOP count the calls in COMMON /TCK/ and TSTOP writes a line
C     for every 16th column, so the loop over columns is parallel only
C     when .NOT. TIMERS holds where it starts.
      PROGRAM COLS
      INTEGER N, M
      PARAMETER (N = 300, M = 64)
      LOGICAL TIMERS
      COMMON /TFLAG/ TIMERS
      INTEGER NCALL
      COMMON /TCK/ NCALL(2)
      DOUBLE PRECISION A(N, M), S
      INTEGER I, J, IOS, IT
      OPEN(UNIT=2, FILE='timers.flag', STATUS='OLD', IOSTAT=IOS)
      IF (IOS .EQ. 0) THEN
         TIMERS = .TRUE.
         CLOSE(2)
      ELSE
         TIMERS = .FALSE.
      ENDIF
      NCALL(1) = 0
      NCALL(2) = 0
      DO J = 1, M
         DO I = 1, N
            A(I, J) = DBLE(MOD(I * 7 + J * 13, 31))
         END DO
      END DO
      DO IT = 1, 3
         DO J = 1, M
            CALL SMOOTH(A(1, J), N, J)
         END DO
      END DO
      S = 0
      DO J = 1, M
         DO I = 1, N
            S = S + A(I, J) * I
         END DO
      END DO
      WRITE(*,'(F24.8)') S
      WRITE(*,'(4F16.8)') A(1, 1), A(N, 1), A(1, M), A(N, M)
      IF (TIMERS) WRITE(*,*) 'timer calls', NCALL(1), NCALL(2)
      END

      SUBROUTINE SMOOTH(Y, N, J)
      INTEGER N, J, I
      DOUBLE PRECISION Y(N)
      LOGICAL TIMERS
      COMMON /TFLAG/ TIMERS
      IF (TIMERS) CALL TSTART(1)
      DO I = 2, N
         Y(I) = 0.5D0 * (Y(I) + Y(I - 1)) + 0.001D0 * J
      END DO
      IF (TIMERS) THEN
         CALL TSTOP(2, J)
      END IF
      END

      SUBROUTINE TSTART(K)
      INTEGER K, NCALL
      COMMON /TCK/ NCALL(2)
      NCALL(K) = NCALL(K) + 1
      END

      SUBROUTINE TSTOP(K, J)
      INTEGER K, J, NCALL
      COMMON /TCK/ NCALL(2)
      NCALL(K) = NCALL(K) + 1
      IF (MOD(J, 16) .EQ. 0) WRITE(*,*) 'column', J
      END
