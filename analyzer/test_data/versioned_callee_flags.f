C     Procedures that time or trace themselves under a logical flag in
C     COMMON (NPB FT's SWARZTRAUBER: IF (TIMERS_ENABLED) CALL
C     TIMER_START(4)). The timer writes COMMON /TT/ and calls WTIME,
C     a clock that keeps state, so every loop calling SMOOTH is blocked.
C     The flag is set once from a file and the loops never change it:
C     they are parallel when .NOT. TIMERS holds where they start (the
C     guarded calls do not run then), through two levels of calls and
C     with a second flag (TRACE, which guards a WRITE). Look-alikes: a
C     loop that sets the flag, a unit that does not declare the flag
C     (it cannot test it), a procedure that blocks besides its guarded
C     call, and a flag whose guards want it both ways (VERB).
      PROGRAM CFLAG
      LOGICAL TIMERS, TRACE, VERB
      COMMON /TFLAG/ TIMERS
      COMMON /TRFLAG/ TRACE
      COMMON /VFLAG/ VERB
      DOUBLE PRECISION X(8, 50), W(8)
      INTEGER J, K, IOS
      OPEN(UNIT=2, FILE='timer.flag', STATUS='OLD', IOSTAT=IOS)
      TIMERS = IOS .EQ. 0
      TRACE = .FALSE.
      VERB = .FALSE.
      DO 5 K = 1, 8
         W(K) = 0
    5 CONTINUE
C EXPECT: parallel
      DO 10 J = 1, 50
C EXPECT: parallel
         DO 10 K = 1, 8
            X(K, J) = J + K
   10 CONTINUE
C EXPECT: sequential blockers(call) when[.NOT. TIMERS] vprivate()
      DO 20 J = 1, 50
         CALL SMOOTH(X(1, J), 8)
   20 CONTINUE
C EXPECT: sequential blockers(call,scalar)
      DO 30 J = 1, 50
         CALL SMOOTH(X(1, J), 8)
         IF (J .EQ. 25) TIMERS = .TRUE.
   30 CONTINUE
C EXPECT: sequential blockers(call,io) when[.NOT. TIMERS; .NOT. TRACE] vprivate()
      DO 40 J = 1, 50
         CALL TRACED(X(1, J), J)
   40 CONTINUE
C EXPECT: sequential blockers(call)
      DO 50 J = 1, 50
         CALL ACCUM(X(1, J), W)
   50 CONTINUE
C EXPECT: sequential blockers(call)
      DO 60 J = 1, 50
         CALL LOUD(X(1, J))
   60 CONTINUE
      CALL DRIVER(X)
      CALL SOFT
      PRINT *, X(1, 1), X(8, 50), W(1)
      END

      SUBROUTINE DRIVER(X)
      DOUBLE PRECISION X(8, 50)
      INTEGER J
C EXPECT: sequential blockers(call)
      DO 10 J = 1, 50
         CALL SMOOTH(X(1, J), 8)
   10 CONTINUE
      END

      SUBROUTINE SMOOTH(Y, N)
      INTEGER N, I
      DOUBLE PRECISION Y(N)
      LOGICAL TIMERS
      COMMON /TFLAG/ TIMERS
      IF (TIMERS) CALL TSTART(4)
C EXPECT: across
      DO 10 I = 2, N
         Y(I) = Y(I) + 0.5D0 * Y(I - 1)
   10 CONTINUE
      IF (TIMERS) CALL TSTOP(4)
      END

      SUBROUTINE TRACED(Y, J)
      INTEGER J
      DOUBLE PRECISION Y(8)
      LOGICAL TRACE
      COMMON /TRFLAG/ TRACE
      CALL SMOOTH(Y, 8)
      IF (TRACE) THEN
         WRITE (*, *) 'column', J, Y(1)
      END IF
      END

      SUBROUTINE ACCUM(Y, S)
      DOUBLE PRECISION Y(8), S(8)
      LOGICAL TIMERS
      COMMON /TFLAG/ TIMERS
      INTEGER I
      IF (TIMERS) CALL TSTART(5)
C EXPECT: parallel
      DO 10 I = 1, 8
         S(I) = S(I) + Y(I)
   10 CONTINUE
      END

      SUBROUTINE LOUD(Y)
      DOUBLE PRECISION Y(8)
      LOGICAL VERB
      COMMON /VFLAG/ VERB
      IF (VERB) CALL TSTART(6)
      Y(1) = Y(1) * 2
      END

      SUBROUTINE SOFT
      LOGICAL VERB
      COMMON /VFLAG/ VERB
      IF (.NOT. VERB) CALL TSTART(7)
      END

      SUBROUTINE TSTART(K)
      INTEGER K
      DOUBLE PRECISION T(10), WTIME
      EXTERNAL WTIME
      COMMON /TT/ T
      T(K) = WTIME()
      END

      SUBROUTINE TSTOP(K)
      INTEGER K
      DOUBLE PRECISION T(10), WTIME
      EXTERNAL WTIME
      COMMON /TT/ T
      T(K) = WTIME() - T(K)
      END

      DOUBLE PRECISION FUNCTION WTIME()
      INTEGER NT
      SAVE NT
      DATA NT /0/
      NT = NT + 1
      WTIME = NT
      END
