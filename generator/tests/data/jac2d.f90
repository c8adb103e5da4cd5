! Jacobi relaxation on a 2-D grid, free form (input of the generator tests).
program jac2d
  implicit none
  integer, parameter :: l = 40, itmax = 5
  real :: a(l, l), b(l, l), c(l, l)
  real :: eps, maxeps, s, xmin, t
  integer :: i, j, it

  maxeps = 0.5e-7
  do j = 1, l
    do i = 1, l
      a(i, j) = 0.
      c(i, j) = 0.
      if (i == 1 .or. j == 1 .or. i == l .or. j == l) then
        b(i, j) = 0.
      else
        b(i, j) = 1. + i + j
      end if
    end do
  end do
  do it = 1, itmax
    eps = 0.
    s = 0.
    xmin = huge(xmin)
    !$SPF ANALYSIS(REDUCTION(MAX(EPS)))
    do j = 2, l - 1
      do i = 2, l - 1
        eps = max(eps, abs(b(i, j) - a(i, j)))
        a(i, j) = b(i, j)
      end do
    end do
    do j = 2, l - 1
      do i = 2, l - 1
        t = (a(i - 1, j) + a(i, j - 1) + a(i + 1, j) + a(i, j + 1)) / 4
        b(i, j) = t
        c(i, j) = (a(i - 1, j - 1) + a(i + 1, j + 1)) / 2 + a(1, 1)
        s = s + b(i, j)
        xmin = min(xmin, c(i, j))
      end do
    end do
    print '(a, i4, a, e14.7, a, e14.7, a, e14.7)', ' it = ', it, ' eps = ', eps, &
      ' s = ', s, ' min = ', xmin
    if (eps < maxeps) exit
  end do
end program jac2d
