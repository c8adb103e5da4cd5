      program fis
c     A nest of two independent statements sharing its loops' label,
c     written once per statement by the generator (loop fission).
      integer n, i, m
      parameter (n = 6)
      double precision a(3, n), b(3, n)
      do 5 i = 1, n
         do 5 m = 1, 3
            a(m, i) = m + i
            b(m, i) = m - i
    5 continue
      do 10 i = 2, n
         do 10 m = 1, 3
            a(m, i) = a(m, i) * 2
c           the second statement
            b(m, i) = b(m, i)
     >                + 1
   10 continue
      print '(6f6.1)', a, b
      end
