C     A subroutine runs a region on a dummy cube that its callers pass as
C     one element of a 4-D array (NPB UA: FACEV(TRHS(1,1,1,IE),...)).
C     Between the calls the host rewrites the whole 4-D array (a loop
C     with a recurrence stays on the host). The accelerator then holds
C     one copy per cube; the host's rewrite of the big array must make
C     every one of them stale, or the next call computes with old
C     values of the elements the face loop does not touch. (The loop of
C     calls is parallel: the cube A(N,N,N) with N = 5 passed is exactly
C     T(:,:,:,IE), a cube of its own in every iteration.)
      PROGRAM CUBES
      PARAMETER (N = 5, NE = 7)
      DOUBLE PRECISION T(N,N,N,NE), X, S
C EXPECT: sequential blockers(call,dep)
      DO 60 IT = 1, 3
         X = 0.5D0 * IT
C EXPECT: sequential blockers(scalar)
         DO 20 IE = 1, NE
C EXPECT: sequential blockers(scalar)
            DO 20 K = 1, N
C EXPECT: sequential blockers(scalar)
               DO 20 J = 1, N
C EXPECT: sequential blockers(scalar)
                  DO 20 I = 1, N
                     X = X * 0.999D0 + 1.0D0
                     T(I,J,K,IE) = X + IE
   20    CONTINUE
C EXPECT: parallel
         DO 30 IE = 1, NE
            CALL FACE(T(1,1,1,IE), MOD(IE+IT,6) + 1, -1.0D0*IT, N)
   30    CONTINUE
   60 CONTINUE
      S = 0.0D0
C EXPECT: parallel reduction(sum:s)
      DO 50 IE = 1, NE
C EXPECT: parallel reduction(sum:s)
         DO 50 K = 1, N
C EXPECT: parallel reduction(sum:s)
            DO 50 J = 1, N
C EXPECT: parallel reduction(sum:s)
               DO 50 I = 1, N
                  S = S + T(I,J,K,IE) * (I + 2*J + 3*K + 5*IE)
   50 CONTINUE
      WRITE (6, '(A, F24.8)') ' SUM', S
      WRITE (6, '(A, 3F14.8)') ' T', T(1,1,1,1), T(3,2,4,5), T(N,N,N,NE)
      END

      SUBROUTINE FACE(A, IFACE, VAL, N)
      INTEGER IFACE, N
      DOUBLE PRECISION A(N,N,N), VAL
      KX1 = 1
      KX2 = N
      KY1 = 1
      KY2 = N
      IF (IFACE .EQ. 1) KX1 = N
      IF (IFACE .EQ. 2) KX2 = 1
      IF (IFACE .EQ. 3) KY1 = N
      IF (IFACE .EQ. 4) KY2 = 1
C EXPECT: parallel
      DO 10 IZ = 1, N
C EXPECT: parallel
         DO 10 IY = KY1, KY2
C EXPECT: parallel
            DO 10 IX = KX1, KX2
               A(IX,IY,IZ) = A(IX,IY,IZ) + VAL
   10 CONTINUE
      END
