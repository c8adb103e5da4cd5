C     Calls that run only when a logical flag asks for them (NPB EP's
C     IF (TIMERS_ENABLED) CALL TIMER_START(3)) block the loop: TICK
C     adds to a COMMON counter every iteration. The flag is read from
C     a file and the loop never changes it, so the loop is parallel
C     when .NOT. DEBUG holds where it starts (the guarded statements
C     do not run then). Look-alikes: a loop that sets the flag itself,
C     a test on a flag whose other arm blocks too, and one whose
C     guarded call is not what blocks (no test would help). A debugging
C     WRITE under the flag blocks the last loop the same way (also under
C     DEBUG .AND. another test: false whenever DEBUG is).
      PROGRAM VFLAG
      LOGICAL DEBUG, VERB
      INTEGER K, IOS
      DOUBLE PRECISION S(100), Q(0:9), T
      COMMON /CNT/ NT
      INTEGER NT
      OPEN(UNIT=2, FILE='debug.flag', STATUS='OLD', IOSTAT=IOS)
      DEBUG = IOS .EQ. 0
      VERB = .NOT. DEBUG
      NT = 0
      DO 5 K = 0, 9
         Q(K) = 0
    5 CONTINUE
C EXPECT: sequential blockers(call) when[.NOT. DEBUG; VERB] vprivate(l,t) reduction(sum:q)
      DO 20 K = 1, 100
         IF (DEBUG) CALL TICK(K)
         T = DBLE(K) * 0.5D0
         S(K) = T * T
         L = MOD(K, 10)
         Q(L) = Q(L) + T
         IF (.NOT. VERB) THEN
            CALL TICK(L)
         ELSE
            S(K) = S(K) + 1
         END IF
   20 CONTINUE
C EXPECT: sequential blockers(call,scalar)
      DO 30 K = 1, 100
         IF (DEBUG) CALL TICK(K)
         S(K) = S(K) + 1
         IF (K .EQ. 50) DEBUG = .FALSE.
   30 CONTINUE
C EXPECT: sequential blockers(call)
      DO 40 K = 1, 100
         IF (DEBUG) THEN
            CALL TICK(K)
         ELSE
            CALL TICK(K + 1)
         END IF
         S(K) = S(K) * 2
   40 CONTINUE
C EXPECT: sequential blockers(call)
      DO 50 K = 1, 100
         IF (DEBUG) S(K) = S(K) + 1
         CALL TICK(K)
   50 CONTINUE
C EXPECT: sequential blockers(io) when[.NOT. DEBUG] vprivate()
      DO 60 K = 1, 100
         IF (DEBUG) WRITE(*,*) 'K =', K, S(K)
         IF (DEBUG .AND. K .LE. 3) WRITE(*,*) 'first', K
         S(K) = S(K) * 0.5D0
   60 CONTINUE
      PRINT *, S(1), S(100), Q(3), NT
      END

      SUBROUTINE TICK(K)
      INTEGER K, NT
      COMMON /CNT/ NT
      NT = NT + K
      END
