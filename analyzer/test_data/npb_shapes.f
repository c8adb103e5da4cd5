C     Constructs of NPB3.3-SER that sapfor once broke on: blanks inside
C     tokens (. eq., 0.5E - 7), CLASS as a variable, DCONJG under
C     IMPLICIT NONE, an assumed-size dummy Y(*) written in a loop
C     (randdp.f), and a subroutine whose last statements write COMMON
C     scalars from an INCLUDE file longer than the subroutine (domain.f).
      PROGRAM NPBSH
      IMPLICIT NONE
      INCLUDE 'npb_shapes.inc'
      CHARACTER CLASS
      LOGICAL VERIFIED
      DOUBLE COMPLEX Z
      DOUBLE PRECISION S
      INTEGER I
      CLASS = 'U'
      EPS = 0.5E - 7
      CALL DOMAIN
      CALL FILL(A, NX)
C EXPECT: parallel
      DO 10 I = IST, IEND
         B(I) = A(I - 1) + A(I + 1)
   10 CONTINUE
      S = 0.0D0
C EXPECT: parallel reduction(sum:s)
      DO 20 I = IST, IEND
         S = S + B(I)
   20 CONTINUE
      Z = DCONJG(DCMPLX(S, 2.0D0))
      VERIFIED = DIMAG(Z) . eq. -2.0D0 .AND. S . GT. EPS
      IF (NX . EQ. 2000) CLASS = 'S'
      PRINT *, CLASS, ' ', VERIFIED, S
      END

      SUBROUTINE DOMAIN
      IMPLICIT NONE
      INCLUDE 'npb_shapes.inc'
      NX = 2000
      IST = 2
      IEND = NX - 1
      RETURN
      END

      SUBROUTINE FILL(Y, N)
      IMPLICIT NONE
      INTEGER N, I
      DOUBLE PRECISION Y(*)
C EXPECT: parallel
      DO 30 I = 1, N
         Y(I) = DBLE(MOD(I * 7, 13))
   30 CONTINUE
      RETURN
      END
