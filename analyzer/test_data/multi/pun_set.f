      subroutine setre(y, j)
      integer j
      double precision y(*)
      y(j) = dble(j)
      end
