      PROGRAM JAC
      PARAMETER (L=2000, ITMAX=20)
      REAL A(L,L), EPS, MAXEPS, B(L,L)
CDVM$ DISTRIBUTE A(BLOCK,BLOCK)
CDVM$ ALIGN B(I,J) WITH A(I,J)
CDVM$ SHADOW A(1:1,1:1)
      MAXEPS = 0.5E-7
CDVM$ PARALLEL (J,I) ON A(I,J)
      DO J = 1, L
         DO I = 1, L
            A(I, J) = 0.
            IF (I.EQ.1 .OR. J.EQ.1 .OR. I.EQ.L .OR. J.EQ.L) THEN
               B(I, J) = 0.
            ELSE
               B(I, J) = (1. + I + J)
            ENDIF
         ENDDO
      ENDDO

      DO IT = 1, ITMAX
         EPS = 0.
CDVM$ PARALLEL (J,I) ON A(I,J), REDUCTION(MAX(EPS))
         DO J = 2, L-1
            DO I = 2, L-1
               EPS = MAX(EPS, ABS(B(I, J) - A(I, J)))
               A(I, J) = B(I, J)
            ENDDO
         ENDDO
CDVM$ PARALLEL (J,I) ON B(I,J), SHADOW_RENEW(A(1:1,1:1))
         DO J = 2, L-1
            DO I = 2, L-1
               B(I, J) = (A(I-1, J) + A(I, J-1) +
     *                    A(I+1, J) + A(I, J+1)) / 4
            ENDDO
         ENDDO
         PRINT 200, IT, EPS
 200     FORMAT (' IT = ', I4, '   EPS = ', E14.7)
         IF (EPS .LT. MAXEPS) GOTO 3
      ENDDO
    3 OPEN (3, FILE='JAC.DAT', FORM='FORMATTED', STATUS='UNKNOWN')
      WRITE (3,*) B
      CLOSE (3)
      END
