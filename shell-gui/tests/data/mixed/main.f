C     A mixed program: Fortran timers (called around a region in a subroutine
C     through a COMMON flag) call a C function, tick.c. The C file goes to
C     analyze, --auto and run with the Fortran files.
      PROGRAM MIXED
      DOUBLE PRECISION U(100000), R(100000), S
      LOGICAL TIMERON
      COMMON /FIELDS/ U, R
      COMMON /FLAGS/ TIMERON
      INTEGER I, IT
      TIMERON = .TRUE.
      DO I = 1, 100000
        U(I) = I
        R(I) = 1
      END DO
      DO IT = 1, 5
        CALL ADD
      END DO
      S = 0
      DO I = 1, 100000
        S = S + U(I)
      END DO
      PRINT *, S
      CALL TIMER_STOP(2)
      END

      SUBROUTINE ADD
      DOUBLE PRECISION U(100000), R(100000)
      LOGICAL TIMERON
      COMMON /FIELDS/ U, R
      COMMON /FLAGS/ TIMERON
      INTEGER I
      IF (TIMERON) CALL TIMER_START(1)
      DO I = 1, 100000
        U(I) = U(I) * 0.5D0 + R(I)
      END DO
      IF (TIMERON) CALL TIMER_STOP(1)
      END

      SUBROUTINE TIMER_START(N)
      INTEGER N
      DOUBLE PRECISION T
      CALL TICK(T)
      END

      SUBROUTINE TIMER_STOP(N)
      INTEGER N
      DOUBLE PRECISION T
      CALL TICK(T)
      END
