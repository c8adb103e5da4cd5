C     Work arrays read where the analysis cannot show that the same
C     iteration wrote the element first, but where everything any
C     iteration may write of the array has surely been written before
C     the read: an element read outside that is written by no iteration
C     (its value is the one from before the loop), so no iteration sees
C     another's value and the array is private, each copy starting with
C     the values from before the loop.
C     EDGES is NPB BT's exact_rhs: UE(0:G-1,:) is filled, then read at
C     fixed I = 1 (UE(3,M): inside only when G >= 4) and G-1.
C     FLUXES is NPB LU's rhs: FLUX(:,1:NX) is filled, read at IST-1 and
C     IEND+1 (IST, IEND in COMMON), part of it written again for
C     IST..NX, then read again.
C     LATER writes T(N+1) after reading T(M): the read may see the
C     value another iteration wrote there, so loop J is sequential.
C     EDGES runs again with G = 3: the reads of UE(3,M) are of elements
C     no iteration writes, which hold 7 from before the loop.
C     KEEP fills T of COMMON /WRK/ before reading it in every
C     iteration, but PEEK reads what the last iteration left there:
C     loop J of KEEP is sequential.
      PROGRAM PRIST
      INTEGER N1, N2
      PARAMETER (N1 = 9, N2 = 6)
      DOUBLE PRECISION A(0:N1,N2), F(5,0:N1,N2), C(N1,N2)
      DOUBLE PRECISION S, P
      INTEGER I, J, M, G
      INTEGER IST, IEND, NX
      COMMON /DOM/ IST, IEND, NX
C EXPECT: parallel
      DO 20 J = 1, N2
C EXPECT: parallel
         DO 10 I = 0, N1
            A(I,J) = I + 10 * J
C EXPECT: parallel
            DO 5 M = 1, 5
               F(M,I,J) = 0
    5       CONTINUE
   10    CONTINUE
   20 CONTINUE
      G = N1
      CALL EDGES(A, F, G, N1, N2)
      G = 3
      CALL EDGES(A, F, G, N1, N2)
      IST = 2
      IEND = N1 - 1
      NX = N1
      CALL FLUXES(A, F, N1, N2)
      CALL LATER(A, C, N1, N2, 3)
      CALL KEEP(A, N1, N2)
      CALL PEEK(P)
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 40 J = 1, N2
C EXPECT: parallel reduction(sum:s)
         DO 35 I = 1, N1
C EXPECT: parallel reduction(sum:s)
            DO 30 M = 1, 5
               S = S + F(M,I,J) * M
   30       CONTINUE
            S = S + C(I,J)
   35    CONTINUE
   40 CONTINUE
      WRITE (*, '(A, 2F20.6)') ' S =', S, P
      WRITE (*, '(5F12.3)') F
      END

      SUBROUTINE EDGES(A, F, G, N1, N2)
      INTEGER G, N1, N2, I, J, M
      DOUBLE PRECISION A(0:N1,N2), F(5,0:N1,N2), UE(0:20,5)
C EXPECT: parallel
      DO 3 M = 1, 5
C EXPECT: parallel
         DO 2 I = 0, 20
            UE(I,M) = 7
    2    CONTINUE
    3 CONTINUE
C EXPECT: parallel private(ue)
      DO 50 J = 1, N2
C EXPECT: parallel
         DO 10 I = 0, G - 1
C EXPECT: parallel
            DO 5 M = 1, 5
               UE(I,M) = A(I,J) * M
    5       CONTINUE
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = 1, G - 2
C EXPECT: parallel
            DO 15 M = 1, 5
               F(M,I,J) = F(M,I,J) + UE(I+1,M) - UE(I-1,M)
   15       CONTINUE
   20    CONTINUE
C EXPECT: parallel private(i)
         DO 30 M = 1, 5
            I = 1
            F(M,I,J) = F(M,I,J) + 5 * UE(I,M) - 4 * UE(I+1,M)
     &               + UE(I+2,M)
            I = G - 1
            F(M,I,J) = F(M,I,J) + UE(I-2,M) - 4 * UE(I-1,M)
   30    CONTINUE
   50 CONTINUE
      END

      SUBROUTINE FLUXES(A, F, N1, N2)
      INTEGER N1, N2, I, J, M
      INTEGER IST, IEND, NX
      COMMON /DOM/ IST, IEND, NX
      DOUBLE PRECISION A(0:N1,N2), F(5,0:N1,N2), FLUX(5,20), T
C EXPECT: parallel private(flux,t)
      DO 50 J = 1, N2
C EXPECT: parallel
         DO 10 I = 1, NX
            FLUX(1,I) = A(I,J)
C EXPECT: parallel
            DO 5 M = 2, 5
               FLUX(M,I) = A(I,J) * M + A(I-1,J)
    5       CONTINUE
   10    CONTINUE
C EXPECT: parallel
         DO 20 I = IST, IEND
C EXPECT: parallel
            DO 15 M = 1, 5
               F(M,I,J) = F(M,I,J) - (FLUX(M,I+1) - FLUX(M,I-1)) / 2
   15       CONTINUE
   20    CONTINUE
C EXPECT: parallel private(t)
         DO 30 I = IST, NX
            T = A(I,J) - A(I-1,J)
            FLUX(2,I) = T * 3
            FLUX(3,I) = T * T
            FLUX(4,I) = T + 1
            FLUX(5,I) = T - 1
   30    CONTINUE
C EXPECT: parallel
         DO 40 I = IST, IEND
C EXPECT: parallel
            DO 35 M = 2, 5
               F(M,I,J) = F(M,I,J) + FLUX(M,I+1) - FLUX(M,I)
   35       CONTINUE
   40 CONTINUE
   50 CONTINUE
      END

      SUBROUTINE LATER(A, C, N1, N2, K)
      INTEGER N1, N2, K, I, J
      DOUBLE PRECISION A(0:N1,N2), C(N1,N2), T(0:20)
C EXPECT: parallel
      DO 5 I = 0, 20
         T(I) = 1
    5 CONTINUE
C EXPECT: sequential blockers(dep)
      DO 50 J = 1, N2
C EXPECT: parallel
         DO 10 I = 1, N1 - 1
            T(I) = A(I,J)
   10    CONTINUE
         C(1,J) = T(K)
C EXPECT: parallel
         DO 20 I = 2, N1
            C(I,J) = T(I-1) + T(K)
   20    CONTINUE
         T(N1) = J
   50 CONTINUE
      END

      SUBROUTINE KEEP(A, N1, N2)
      INTEGER N1, N2, I, J
      DOUBLE PRECISION A(0:N1,N2), T(0:20)
      COMMON /WRK/ T
C EXPECT: sequential blockers(dep)
      DO 20 J = 1, N2
C EXPECT: parallel
         DO 10 I = 0, N1
            T(I) = A(I,J) * 2
   10    CONTINUE
C EXPECT: parallel
         DO 15 I = 1, N1
            A(I,J) = A(I,J) + T(I-1)
   15    CONTINUE
   20 CONTINUE
      END

      SUBROUTINE PEEK(P)
      DOUBLE PRECISION T(0:20), P
      COMMON /WRK/ T
      P = T(3)
      END
