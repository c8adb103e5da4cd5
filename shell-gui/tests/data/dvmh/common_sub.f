C     DVMH test: regions in a subroutine that works on COMMON arrays,
C     called from a time loop whose host code writes and reads them.
      PROGRAM SUBS
      PARAMETER (N = 100000)
      COMMON /FLD/ U(N), V(N)
      DO I = 1, N
         U(I) = MOD(I*7, 13) * 0.5
      ENDDO
      DO IT = 1, 5
         CALL SMOOTH
         U(1) = U(2)
         S = 0.
         DO I = 1, N
            S = S + U(I)
         ENDDO
         PRINT *, IT, S
      ENDDO
      END
      SUBROUTINE SMOOTH
      PARAMETER (N = 100000)
      COMMON /FLD/ U(N), V(N)
      DO I = 2, N-1
         V(I) = 0.5*U(I) + 0.25*(U(I-1)+U(I+1))
      ENDDO
      DO I = 2, N-1
         U(I) = V(I)
      ENDDO
      END
