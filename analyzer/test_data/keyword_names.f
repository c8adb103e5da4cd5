C     Fortran keywords as variable names (any keyword is a valid name):
C     CLASS, RETURN and an array CLOSE, beside the RETURN statement
C     itself. NPB LU's verify.f has CHARACTER CLASS.
      PROGRAM KWNAME
      IMPLICIT NONE
      CHARACTER CLASS
      INTEGER CLOSE(300), I, RETURN
      CLASS = 'U'
      RETURN = 0
C EXPECT: parallel
      DO 10 I = 1, 300
         CLOSE(I) = I * 2
   10 CONTINUE
C EXPECT: parallel reduction(sum:return)
      DO 20 I = 1, 300
         RETURN = RETURN + CLOSE(I)
   20 CONTINUE
      IF (CLASS .EQ. 'U') PRINT *, 'class ', CLASS, RETURN
      CALL SUB(RETURN)
      END

      SUBROUTINE SUB(N)
      INTEGER N
      PRINT *, N
      RETURN
      END
