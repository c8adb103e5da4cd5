C     A block solver step in the shape of NPB BT's x_solve: a procedure with 5x5
C     dummies, every element written and read in straight-line code, called with
C     elements LHS(1,1,K,I) of a 4-D array. Each element of a dummy is one
C     element of the 5x5 block LHS(:,:,K,I) (its first two extents are LHS's):
C     iteration I writes block 3 of plane I and reads blocks 1 and 2, which no
C     iteration writes, so the loop of calls is parallel.
      PROGRAM BLKSOL
      INTEGER N
      PARAMETER (N = 8)
      DOUBLE PRECISION LHS(5,5,3,N), S
      INTEGER I, J, K, M
C EXPECT: parallel
      DO 10 I = 1, N
C EXPECT: parallel
         DO 10 K = 1, 3
C EXPECT: parallel
            DO 10 J = 1, 5
C EXPECT: parallel
               DO 10 M = 1, 5
                  LHS(M,J,K,I) = 1.0D0 / (M + J + K + I)
   10 CONTINUE
C EXPECT: parallel
      DO 20 I = 2, N
         CALL MATMUL(LHS(1,1,1,I-1), LHS(1,1,2,I), LHS(1,1,3,I))
   20 CONTINUE
      S = 0.0D0
C EXPECT: parallel reduction(sum:s)
      DO 30 I = 1, N
         S = S + LHS(1,1,3,I) + LHS(5,5,3,I)
   30 CONTINUE
      PRINT *, S
      END

      SUBROUTINE MATMUL(A, B, C)
      DOUBLE PRECISION A(5,5), B(5,5), C(5,5)
      C(1,1) = C(1,1) - A(1,1)*B(1,1) - A(1,2)*B(2,1)
     >         - A(1,3)*B(3,1) - A(1,4)*B(4,1) - A(1,5)*B(5,1)
      C(1,2) = C(1,2) - A(1,1)*B(1,2) - A(1,2)*B(2,2)
     >         - A(1,3)*B(3,2) - A(1,4)*B(4,2) - A(1,5)*B(5,2)
      C(1,3) = C(1,3) - A(1,1)*B(1,3) - A(1,2)*B(2,3)
     >         - A(1,3)*B(3,3) - A(1,4)*B(4,3) - A(1,5)*B(5,3)
      C(1,4) = C(1,4) - A(1,1)*B(1,4) - A(1,2)*B(2,4)
     >         - A(1,3)*B(3,4) - A(1,4)*B(4,4) - A(1,5)*B(5,4)
      C(1,5) = C(1,5) - A(1,1)*B(1,5) - A(1,2)*B(2,5)
     >         - A(1,3)*B(3,5) - A(1,4)*B(4,5) - A(1,5)*B(5,5)
      C(2,1) = C(2,1) - A(2,1)*B(1,1) - A(2,2)*B(2,1)
     >         - A(2,3)*B(3,1) - A(2,4)*B(4,1) - A(2,5)*B(5,1)
      C(2,2) = C(2,2) - A(2,1)*B(1,2) - A(2,2)*B(2,2)
     >         - A(2,3)*B(3,2) - A(2,4)*B(4,2) - A(2,5)*B(5,2)
      C(2,3) = C(2,3) - A(2,1)*B(1,3) - A(2,2)*B(2,3)
     >         - A(2,3)*B(3,3) - A(2,4)*B(4,3) - A(2,5)*B(5,3)
      C(2,4) = C(2,4) - A(2,1)*B(1,4) - A(2,2)*B(2,4)
     >         - A(2,3)*B(3,4) - A(2,4)*B(4,4) - A(2,5)*B(5,4)
      C(2,5) = C(2,5) - A(2,1)*B(1,5) - A(2,2)*B(2,5)
     >         - A(2,3)*B(3,5) - A(2,4)*B(4,5) - A(2,5)*B(5,5)
      C(3,1) = C(3,1) - A(3,1)*B(1,1) - A(3,2)*B(2,1)
     >         - A(3,3)*B(3,1) - A(3,4)*B(4,1) - A(3,5)*B(5,1)
      C(3,2) = C(3,2) - A(3,1)*B(1,2) - A(3,2)*B(2,2)
     >         - A(3,3)*B(3,2) - A(3,4)*B(4,2) - A(3,5)*B(5,2)
      C(3,3) = C(3,3) - A(3,1)*B(1,3) - A(3,2)*B(2,3)
     >         - A(3,3)*B(3,3) - A(3,4)*B(4,3) - A(3,5)*B(5,3)
      C(3,4) = C(3,4) - A(3,1)*B(1,4) - A(3,2)*B(2,4)
     >         - A(3,3)*B(3,4) - A(3,4)*B(4,4) - A(3,5)*B(5,4)
      C(3,5) = C(3,5) - A(3,1)*B(1,5) - A(3,2)*B(2,5)
     >         - A(3,3)*B(3,5) - A(3,4)*B(4,5) - A(3,5)*B(5,5)
      C(4,1) = C(4,1) - A(4,1)*B(1,1) - A(4,2)*B(2,1)
     >         - A(4,3)*B(3,1) - A(4,4)*B(4,1) - A(4,5)*B(5,1)
      C(4,2) = C(4,2) - A(4,1)*B(1,2) - A(4,2)*B(2,2)
     >         - A(4,3)*B(3,2) - A(4,4)*B(4,2) - A(4,5)*B(5,2)
      C(4,3) = C(4,3) - A(4,1)*B(1,3) - A(4,2)*B(2,3)
     >         - A(4,3)*B(3,3) - A(4,4)*B(4,3) - A(4,5)*B(5,3)
      C(4,4) = C(4,4) - A(4,1)*B(1,4) - A(4,2)*B(2,4)
     >         - A(4,3)*B(3,4) - A(4,4)*B(4,4) - A(4,5)*B(5,4)
      C(4,5) = C(4,5) - A(4,1)*B(1,5) - A(4,2)*B(2,5)
     >         - A(4,3)*B(3,5) - A(4,4)*B(4,5) - A(4,5)*B(5,5)
      C(5,1) = C(5,1) - A(5,1)*B(1,1) - A(5,2)*B(2,1)
     >         - A(5,3)*B(3,1) - A(5,4)*B(4,1) - A(5,5)*B(5,1)
      C(5,2) = C(5,2) - A(5,1)*B(1,2) - A(5,2)*B(2,2)
     >         - A(5,3)*B(3,2) - A(5,4)*B(4,2) - A(5,5)*B(5,2)
      C(5,3) = C(5,3) - A(5,1)*B(1,3) - A(5,2)*B(2,3)
     >         - A(5,3)*B(3,3) - A(5,4)*B(4,3) - A(5,5)*B(5,3)
      C(5,4) = C(5,4) - A(5,1)*B(1,4) - A(5,2)*B(2,4)
     >         - A(5,3)*B(3,4) - A(5,4)*B(4,4) - A(5,5)*B(5,4)
      C(5,5) = C(5,5) - A(5,1)*B(1,5) - A(5,2)*B(2,5)
     >         - A(5,3)*B(3,5) - A(5,4)*B(4,5) - A(5,5)*B(5,5)
      END
