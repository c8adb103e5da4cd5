C     Planes of a 3-D array given to procedures as 2-D arrays with sizes
C     known only at run time: CALL PLANE(A(1,1,K), N1, N2, K) with
C     A(N1,N2,N3) and X(M1,M2). The dummy's leading extent is the
C     actual's, so its columns are the plane's columns and loop K is
C     parallel; also from the second column on (M2 = N2 - 1). With M
C     columns, M given by the caller, the plane holds them only when
C     N2 .GE. M: parallel under that test. Not when the leading extents
C     differ (N1 - 1: the dummy's columns straddle the plane's), nor when
C     the plane starts at row 2 (its last column runs into the next
C     plane).
      PROGRAM PLANES
      DOUBLE PRECISION A(6, 5, 4), S
      INTEGER I, J, K, M
      M = 4
      DO 10 K = 1, 4
         DO 10 J = 1, 5
            DO 10 I = 1, 6
               A(I, J, K) = I + 10 * J + 100 * K
   10 CONTINUE
      CALL DRIVE(A, 6, 5, 4, M)
      S = 0
      DO 20 K = 1, 4
         DO 20 J = 1, 5
            DO 20 I = 1, 6
               S = S + A(I, J, K) * (I + J + K)
   20 CONTINUE
      PRINT *, S
      END

      SUBROUTINE DRIVE(A, N1, N2, N3, M)
      INTEGER N1, N2, N3, M, K
      DOUBLE PRECISION A(N1, N2, N3)
C EXPECT: parallel
      DO 10 K = 1, N3
         CALL PLANE(A(1, 1, K), N1, N2, K)
   10 CONTINUE
C EXPECT: parallel
      DO 20 K = 1, N3
         CALL PLANE(A(1, 2, K), N1, N2 - 1, K)
   20 CONTINUE
C EXPECT: sequential blockers(call) when[N2 .GE. M] vprivate()
      DO 30 K = 1, N3
         CALL PLANE(A(1, 1, K), N1, M, K)
   30 CONTINUE
C EXPECT: sequential blockers(call)
      DO 40 K = 1, N3
         CALL PLANE(A(1, 1, K), N1 - 1, N2, K)
   40 CONTINUE
C EXPECT: sequential blockers(call)
      DO 50 K = 1, N3
         CALL PLANE(A(2, 1, K), N1, N2, K)
   50 CONTINUE
      END

      SUBROUTINE PLANE(X, M1, M2, K)
      INTEGER M1, M2, K, I, J
      DOUBLE PRECISION X(M1, M2)
C EXPECT: parallel
      DO 10 J = 1, M2
C EXPECT: across
         DO 10 I = 2, M1
            X(I, J) = X(I - 1, J) * 0.5D0 + K
   10 CONTINUE
      END
