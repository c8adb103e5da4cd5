      PROGRAM NEST
      INCLUDE 'outer.inc'
      INCLUDE 'more.inc'
      K = 1
      A(K) = 1.
      B(K) = 2.
      PRINT *, B(K), A(K)
      END
