      subroutine fill(k, a, y)
      integer k, i
      double precision a, y(k)
      do i = 1, k
         y(i) = a * i
      end do
      end
