C     A nest whose loops share their terminal label: the inner loop
C     leaves through the outer loop's increment. T's last value is
C     printed after the nest, so T is not private to either loop (the
C     inner loop was once called parallel with T private, and the
C     program printed an undefined T).
      PROGRAM SHARED
      DOUBLE PRECISION A(10,10), T
      INTEGER I, J
C EXPECT: sequential blockers(scalar)
      DO 30 J = 1, 10
C EXPECT: sequential blockers(scalar)
      DO 30 I = 1, 10
         T = I + J
         A(I,J) = T
   30 CONTINUE
      PRINT *, T, A(3,3)
      END
