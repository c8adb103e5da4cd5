      PROGRAM INCT
      IMPLICIT NONE
      INCLUDE 'decl.inc'
C     the executable part
      DO I = 1, N
         A(I) = I
      ENDDO
      PRINT *, A(N)
      END

      SUBROUTINE NOSPEC
      CALL INCT2
      END

      SUBROUTINE ONLYDC(X)
      REAL X(10)
      END

      SUBROUTINE EMPTY
      END
