C     A work array filled over a symbolic range by an inner loop and read
C     through scalars the iteration sets first (IP1 = I + 1, as NPB's
C     exact_rhs does): the reads name elements written earlier in the same
C     iteration, so W is private and loop J is parallel. In the second nest
C     the scalar is set AFTER the read (the read sees last iteration's
C     value): W2 is not private and loop J is sequential (the I loop too:
C     W2(IP1) is one of the elements it writes).
      PROGRAM PWSUB
      INTEGER N
      PARAMETER (N = 30)
      DOUBLE PRECISION F(N,N), W(0:N), W2(0:N), T
      INTEGER I, J, IP1, IM1, NX
      NX = N
C EXPECT: parallel private(w,ip1,im1)
      DO 40 J = 1, N
C EXPECT: parallel
         DO 10 I = 0, NX - 1
            W(I) = I * J
   10    CONTINUE
C EXPECT: parallel private(ip1,im1)
         DO 20 I = 2, NX - 2
            IP1 = I + 1
            IM1 = I - 1
            F(I,J) = W(IP1) - W(IM1) + W(I)
   20    CONTINUE
   40 CONTINUE
C     (W2 defined first: the first read of W2(IP1) saw whatever the stack
C     held)
C EXPECT: parallel
      DO 45 I = 0, N
         W2(I) = 0
   45 CONTINUE
      IP1 = 1
C EXPECT: sequential blockers(dep,scalar)
      DO 60 J = 1, N
C EXPECT: sequential blockers(dep)
         DO 50 I = 0, N
            W2(I) = W2(IP1) + I + J
   50    CONTINUE
         IP1 = J
   60 CONTINUE
      T = 0
C EXPECT: parallel reduction(sum:t)
      DO 70 J = 1, N
         T = T + F(2,J) + F(N-2,J) + W2(J)
   70 CONTINUE
      WRITE (*, '(A, F16.3)') ' T =', T
      END
