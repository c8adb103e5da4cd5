C     Elements of a 2-D array given to procedures with 1-D dummies
C     (sequence association, LINPACK style). A callee reaching Y(1:N)
C     from A(K,J) stays in column J when K + N - 1 <= LDA: then the
C     iterations over J touch disjoint columns. With symbolic sizes
C     that is a test the program makes where the loop starts; with
C     constants it is decided here.
      PROGRAM COLCAL
      INTEGER LDA, M
      PARAMETER (LDA = 12, M = 9)
      DOUBLE PRECISION A(LDA, M), B(4, 10), X(40), S
      INTEGER I, J, N
      N = MOD(37, 9) + 4
C EXPECT: parallel
      DO J = 1, M
C EXPECT: parallel
         DO I = 1, LDA
            A(I, J) = I + 0.5D0 * J
         END DO
      END DO
C EXPECT: parallel
      DO J = 1, 10
C EXPECT: parallel
         DO I = 1, 4
            B(I, J) = I - J
         END DO
      END DO
C EXPECT: parallel
      DO I = 1, 40
         X(I) = I
      END DO
      CALL WORK(A, LDA, M, N)
C     the callee reaches Y(1:5): past the column of 4
C EXPECT: sequential blockers(call)
      DO J = 1, 9
         CALL SCALE(5, B(1, J), 2.0D0)
      END DO
C     Y(1:3) from B(2,J): rows 2..4, inside the column
C EXPECT: parallel
      DO J = 1, 10
         CALL SCALE(3, B(2, J), 3.0D0)
      END DO
C     a 1-D array: X(2*J-1:2*J) for each J, disjoint (a section of
C     constant width whose ends move with J)
C EXPECT: parallel
      DO J = 1, 20
         CALL SCALE(2, X(2 * J - 1), 1.5D0)
      END DO
C     X(2*J-1:2*J+1): each overlaps the next
C EXPECT: sequential blockers(call)
      DO J = 1, 19
         CALL SCALE(3, X(2 * J - 1), 1.5D0)
      END DO
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO J = 1, M
C EXPECT: parallel reduction(sum:s)
         DO I = 1, LDA
            S = S + A(I, J) * I
         END DO
      END DO
      PRINT *, S, B(2, 3), B(4, 9), X(7)
      END

      SUBROUTINE WORK(A, LDA, M, N)
      INTEGER LDA, M, N, J
      DOUBLE PRECISION A(LDA, M)
C EXPECT: sequential blockers(call) when[LDA .GE. N + 1]
      DO J = 1, M
         CALL SCALE(N, A(2, J), 3.0D0)
      END DO
C     SHIFT reaches Y(1:N+1) from A(1,J): LDA .GE. N + 1 again
C EXPECT: sequential blockers(call) when[LDA .GE. N + 1]
      DO J = 1, M
         CALL SHIFT(N, A(1, J))
      END DO
      END

      SUBROUTINE SCALE(N, Y, F)
      INTEGER N, I
      DOUBLE PRECISION Y(*), F
C EXPECT: parallel
      DO I = 1, N
         Y(I) = Y(I) * F
      END DO
      END

      SUBROUTINE SHIFT(N, Y)
      INTEGER N, I
      DOUBLE PRECISION Y(*)
C EXPECT: across
      DO I = N, 1, -1
         Y(I + 1) = Y(I)
      END DO
      END
