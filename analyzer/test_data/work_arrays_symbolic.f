C     Work arrays whose bounds are not constants (NPB's x/y/z_solve,
C     MG's psinv, FT's cffts): every iteration of the outer loop fills
C     T before it reads it, in loops over 1..N1 that the analysis only
C     knows symbolically. The written part T(1:N1) covers the reads
C     T(I-1), T(I+1) for I = 2..N1-1, so T is private. NEXT1 reads
C     T(I+1) before this iteration writes it (the value comes from the
C     previous iteration): T is not private there. MAYBE writes T only
C     under a condition: not private either. GRID's bounds are elements
C     of an array the unit never changes.
      PROGRAM WSYM
      INTEGER N1, N2
      PARAMETER (N1 = 7, N2 = 5)
      DOUBLE PRECISION A(N1,N2), B(N1,N2), C(N1,N2), S
      INTEGER I, J, G(2)
C EXPECT: parallel
      DO 20 J = 1, N2
C EXPECT: parallel
         DO 10 I = 1, N1
            A(I,J) = I + 10 * J
            B(I,J) = 0
            C(I,J) = 0
   10    CONTINUE
   20 CONTINUE
      CALL SM(A, B, N1, N2)
      CALL NEXT1(A, C, N1, N2)
      CALL BLOCKS(A, B, N1, N2)
      CALL REV(A, C, N1, N2)
      CALL MAYBE(A, C, N1, N2)
      CALL BOTH(A, B, N1, N2)
      G(1) = N1
      G(2) = N2
      CALL GRID(A, C, G, N1, N2)
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 40 J = 1, N2
C EXPECT: parallel reduction(sum:s)
         DO 30 I = 1, N1
            S = S + B(I,J) * I + C(I,J) * J
   30    CONTINUE
   40 CONTINUE
      WRITE (*, '(A, F20.6)') ' S =', S
      WRITE (*, '(7F10.2)') B
      WRITE (*, '(7F10.2)') C
      END

      SUBROUTINE SM(A, B, N1, N2)
      INTEGER N1, N2, I, J
      DOUBLE PRECISION A(N1,N2), B(N1,N2), T(1000)
C EXPECT: parallel private(t)
      DO 30 J = 1, N2
C EXPECT: parallel
         DO 10 I = 1, N1
            T(I) = A(I,J) * 2
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 2, N1 - 1
            B(I,J) = B(I,J) + T(I-1) + T(I+1)
   20    CONTINUE
   30 CONTINUE
      END

      SUBROUTINE NEXT1(A, C, N1, N2)
      INTEGER N1, N2, I, J
      DOUBLE PRECISION A(N1,N2), C(N1,N2), T(1000)
C EXPECT: parallel
      DO 5 I = 1, N1
         T(I) = 0
    5 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 30 J = 1, N2
C EXPECT: across
         DO 10 I = 1, N1 - 1
            T(I) = A(I,J)
            C(I,J) = C(I,J) + T(I+1)
   10    CONTINUE
   30 CONTINUE
      END

      SUBROUTINE BLOCKS(A, B, N1, N2)
      INTEGER N1, N2, I, K
      DOUBLE PRECISION A(N1,N2), B(N1,N2), F(2,2,0:100)
C EXPECT: parallel private(f)
      DO 30 K = 1, N2
C EXPECT: parallel
         DO 10 I = 1, N1
            F(1,1,I) = A(I,K)
            F(1,2,I) = 2 * A(I,K)
            F(2,1,I) = 3 * A(I,K)
            F(2,2,I) = 4 * A(I,K)
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 2, N1 - 1
            B(I,K) = B(I,K) + F(1,1,I-1) + F(2,2,I+1) + F(1,2,I)
     &             - F(2,1,I)
   20    CONTINUE
   30 CONTINUE
      END

      SUBROUTINE REV(A, C, N1, N2)
      INTEGER N1, N2, I, J
      DOUBLE PRECISION A(N1,N2), C(N1,N2), T(1000)
C EXPECT: parallel private(t)
      DO 30 J = 1, N2
C EXPECT: parallel
         DO 10 I = N1, 1, -1
            T(N1+1-I) = A(I,J)
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 1, N1
            C(I,J) = C(I,J) + T(I) / 7
   20    CONTINUE
   30 CONTINUE
      END

      SUBROUTINE MAYBE(A, C, N1, N2)
      INTEGER N1, N2, I, J
      DOUBLE PRECISION A(N1,N2), C(N1,N2), T(1000)
C EXPECT: parallel
      DO 5 I = 1, N1
         T(I) = -1
    5 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 30 J = 1, N2
C EXPECT: parallel
         DO 10 I = 1, N1
            IF (A(I,J) .GT. 25) T(I) = A(I,J)
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 1, N1
            C(I,J) = C(I,J) + T(I)
   20    CONTINUE
   30 CONTINUE
      END

      SUBROUTINE BOTH(A, B, N1, N2)
      INTEGER N1, N2, I, J
      DOUBLE PRECISION A(N1,N2), B(N1,N2), T(1000)
C EXPECT: parallel private(t)
      DO 30 J = 1, N2
C EXPECT: parallel
         DO 10 I = 1, N1
            IF (A(I,J) .GT. 25) THEN
               T(I) = A(I,J)
            ELSE
               T(I) = -A(I,J)
            END IF
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 1, N1
            B(I,J) = B(I,J) + T(N1+1-I)
   20    CONTINUE
   30 CONTINUE
      END

C     NPB's compute_rhs: the bounds are elements of an array (grid_points)
C     that this unit never changes, symbols of their own.
      SUBROUTINE GRID(A, C, G, N1, N2)
      INTEGER N1, N2, G(2), I, J
      DOUBLE PRECISION A(N1,N2), C(N1,N2), CV(0:100)
C EXPECT: parallel private(cv)
      DO 30 J = 1, G(2)
C EXPECT: parallel
         DO 10 I = 0, G(1) - 1
            CV(I) = A(I+1,J) ** 2
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 1, G(1) - 2
            C(I,J) = C(I,J) + CV(I-1) - 2 * CV(I) + CV(I+1)
   20    CONTINUE
   30 CONTINUE
      END
