C     Fixed-form layout as legacy code has it: comment lines that
c     start with C, c, * or !, inline ! comments, continuation lines
*     marked with &, 1, + and $ in column 6 (one statement split over
!     four lines, a DO statement split over two, a comment line between
C     an initial line and its continuation), keywords in mixed case,
C     GO TO / GOTO, END DO / ENDDO / END IF / ENDIF spellings, and
C     card sequence numbers in columns 73-80 that must be ignored.
      PROGRAM LAYOUT                                                    LAYT0080
      INTEGER N, I, J                                                   LAYT0090
      PARAMETER (N = 12)                                                LAYT0100
      REAL XVEC(N), YVEC(N), ZMAT(N,3), TOTAL                           LAYT0110
      real coef1, coef2                                                 LAYT0120
      COEF1 = 0.25                                                      LAYT0130
      coef2 = 0.75                                                      LAYT0140
C EXPECT: parallel
      DO 10 I = 1,                                                      LAYT0160
     &          N                                                       LAYT0170
         XVEC(I) = REAL(I)                                              LAYT0180
         YVEC(I) = REAL(N + 1 - I)                                      LAYT0190
   10 CONTINUE                                                          LAYT0200
C EXPECT: parallel
      do 20 j = 1, 3                                                    LAYT0220
C EXPECT: parallel
         Do 15 I = 1, N                                                 LAYT0240
            ZMAT(I,J) = COEF1 * XVEC(I)                                 LAYT0250
     1                + COEF2 * YVEC(I)                                 LAYT0260
C           the next line continues the statement above
     +                + REAL(J)                                         LAYT0280
     $                * 0.01                                            LAYT0290
   15    continue                                                       LAYT0300
   20 CONTINUE                                                          LAYT0310
C EXPECT: parallel
      DO I = 2, N - 1                                                   LAYT0330
         IF (XVEC(I) .GT. 6.0) GO TO 25                                 LAYT0340
         YVEC(I) = YVEC(I) + 1.0                                        LAYT0350
   25    CONTINUE                                                       LAYT0360
      END DO                                                            LAYT0370
C EXPECT: parallel
      DO J = 1, 3                                                       LAYT0390
C EXPECT: parallel
         DO I = 1, N                                                    LAYT0410
            IF (ZMAT(I,J) .LT. 5.0) THEN                                LAYT0420
               ZMAT(I,J) = 5.0                                          LAYT0430
            ENDIF                                                       LAYT0440
         ENDDO                                                          LAYT0450
      ENDDO                                                             LAYT0460
      TOTAL = 0.0                                                       LAYT0470
C EXPECT: parallel reduction(sum:total)
      DO 40 J = 1, 3                                                    LAYT0490
C EXPECT: parallel reduction(sum:total)
         DO 30 I = 1, N                                                 LAYT0510
            TOTAL = TOTAL + ZMAT(I,J) ! accumulate                      LAYT0520
     &              + YVEC(I)                                           LAYT0530
   30    CONTINUE                                                       LAYT0540
   40 CONTINUE                                                          LAYT0550
      WRITE (*, 100) TOTAL                                              LAYT0560
  100 FORMAT (' TOTAL =',                                               LAYT0570
     &        F12.4)                                                    LAYT0580
      END                                                               LAYT0590
