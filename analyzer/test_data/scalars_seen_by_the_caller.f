C     Scalars a subroutine's loop assigns that the caller sees after the
C     call: a dummy argument set only in some iterations (NPB UA's
C     find_coarsen sets IF_COARSEN = .TRUE. in a loop), a COMMON scalar,
C     and a dummy assigned in every iteration (its last value). None of
C     them is private: a private copy leaves the caller's variable as it
C     was (UA W then ran out of its arrays). A local scalar is private, and
C     so is a COMMON work scalar that no unit reads before writing it (NPB
C     BT's TMP1: its value never passes from one unit to another).
      PROGRAM SEENBC
      LOGICAL FLAG
      INTEGER A(10), LAST, I, K
      COMMON /CLAST/ K
C EXPECT: parallel
      DO 5 I = 1, 10
         A(I) = I
    5 CONTINUE
      CALL FIND(FLAG, LAST, 10, A)
      CALL WORK(10, A)
      WRITE (*, *) FLAG, LAST, K, A(5), A(9)
      END

      SUBROUTINE WORK(N, A)
      INTEGER N, I, A(N), W
      COMMON /CWORK/ W
C EXPECT: parallel private(w)
      DO 40 I = 1, N
         W = A(I) + 1
         A(I) = W * W
   40 CONTINUE
      END

      SUBROUTINE FIND(FLAG, LAST, N, A)
      LOGICAL FLAG, IFT
      INTEGER N, I, LAST, K, T
      INTEGER A(N)
      COMMON /CLAST/ K
      FLAG = .FALSE.
C EXPECT: sequential blockers(scalar) private(ift)
      DO 10 I = 1, N
         IFT = .FALSE.
         IF (A(I) .GT. 3) IFT = .TRUE.
         IF (IFT) THEN
            FLAG = .TRUE.
            A(I) = 0
         END IF
   10 CONTINUE
C EXPECT: sequential blockers(scalar)
      DO 20 I = 1, N
         LAST = A(I) + I
   20 CONTINUE
C EXPECT: sequential blockers(scalar) private(t)
      DO 30 I = 1, N
         T = A(I) * 2
         K = T + 1
         A(I) = T
   30 CONTINUE
      END
