! DVMH test: a parallel loop that calls a subroutine is not a region
! (procedures are not called inside regions); the loop next to it is.
program calls
  implicit none
  integer, parameter :: n = 200000
  double precision :: a(n), b(n), s
  integer :: i
  do i = 1, n
    a(i) = dble(i) / dble(n)
  end do
  do i = 1, n
    call scale(a(i), b(i))
  end do
  s = 0.0d0
  do i = 1, n
    s = s + b(i) * a(i)
  end do
  print '(a, f18.10)', ' dot =', s
contains
  subroutine scale(x, y)
    double precision, intent(in) :: x
    double precision, intent(out) :: y
    y = 3.0d0 * x + 1.0d0
  end subroutine scale
end program calls
