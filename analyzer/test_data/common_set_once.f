C     COMMON scalars the program sets once, in a subroutine the main
C     program calls once before the units that read them (NPB LU's
C     DOMAIN: IST = 2, IEND = NX - 1): in RHSX, IEND stands for NX - 1,
C     so the reads FLUX(M,I+1) for I = IST..IEND lie inside the
C     FLUX(:,1:NX) each iteration of K wrote: FLUX is private to K.
C     JEND is set twice (DOMAIN and WIDEN): nothing is known of it, and
C     RHSY's reads FLUY(M,J+1) for J = 2..JEND may be elements another
C     iteration wrote (FLUY(M,NY+1) when JEND = NY): K is sequential.
      PROGRAM ONCE
      INTEGER NX0, NX, NY, IST, IEND, JEND
      DOUBLE PRECISION U(20,20,6), S
      INTEGER I, J, K
      COMMON /DIM/ NX0, NX, NY, IST, IEND, JEND
      NX0 = MOD(17 * 3, 7) + 9
      CALL DOMAIN
C EXPECT: parallel
      DO 10 K = 1, 6
C EXPECT: parallel
         DO 10 J = 1, 20
C EXPECT: parallel
            DO 10 I = 1, 20
               U(I,J,K) = MOD(I * 3 + J * 5 + K, 13) + 0.5D0
   10 CONTINUE
      CALL RHSX(U)
      CALL WIDEN
      CALL RHSY(U)
      S = 0
C EXPECT: parallel reduction(sum:s)
      DO 20 K = 1, 6
C EXPECT: parallel reduction(sum:s)
         DO 20 J = 1, 20
C EXPECT: parallel reduction(sum:s)
            DO 20 I = 1, 20
               S = S + U(I,J,K) * (I + 2 * J + 3 * K)
   20 CONTINUE
      WRITE (*, '(A, F22.8)') ' S =', S
      END

      SUBROUTINE DOMAIN
      INTEGER NX0, NX, NY, IST, IEND, JEND
      COMMON /DIM/ NX0, NX, NY, IST, IEND, JEND
      NX = NX0
      NY = NX0 - 2
      IST = 2
      IEND = NX - 1
      JEND = NY - 1
      END

      SUBROUTINE WIDEN
      INTEGER NX0, NX, NY, IST, IEND, JEND
      COMMON /DIM/ NX0, NX, NY, IST, IEND, JEND
      JEND = NY
      END

      SUBROUTINE RHSX(U)
      INTEGER NX0, NX, NY, IST, IEND, JEND
      COMMON /DIM/ NX0, NX, NY, IST, IEND, JEND
      DOUBLE PRECISION U(20,20,6), FLUX(5,20)
      COMMON /WRK/ FLUX
      INTEGER I, J, K, M
C EXPECT: parallel private(flux)
      DO 30 K = 2, 5
C EXPECT: parallel private(flux)
         DO 30 J = 2, NY
C EXPECT: parallel
            DO 15 I = 1, NX
C EXPECT: parallel
               DO 15 M = 1, 5
                  FLUX(M,I) = U(I,J,K) * M
   15       CONTINUE
C EXPECT: parallel
            DO 25 I = IST, IEND
C EXPECT: parallel reduction(sum:u)
               DO 25 M = 1, 5
                  U(I,J,K) = U(I,J,K) + (FLUX(M,I+1) - FLUX(M,I-1)) / 8
   25       CONTINUE
   30 CONTINUE
      END

      SUBROUTINE RHSY(U)
      INTEGER NX0, NX, NY, IST, IEND, JEND
      COMMON /DIM/ NX0, NX, NY, IST, IEND, JEND
      DOUBLE PRECISION U(20,20,6), FLUY(5,20)
      COMMON /WRK2/ FLUY
      INTEGER I, J, K, M
C EXPECT: sequential blockers(dep)
      DO 30 K = 2, 5
C EXPECT: parallel
         DO 15 J = 1, NY
C EXPECT: parallel
            DO 15 M = 1, 5
               FLUY(M,J) = U(3,J,K) * M
   15    CONTINUE
C EXPECT: parallel
         DO 25 J = 2, JEND
C EXPECT: parallel reduction(sum:u)
            DO 25 M = 1, 5
               U(4,J,K) = U(4,J,K) + (FLUY(M,J+1) - FLUY(M,J-1)) / 8
   25    CONTINUE
C EXPECT: parallel
         DO 28 M = 1, 5
            FLUY(M,NY+1) = K
   28    CONTINUE
   30 CONTINUE
      END
