! A main program with internal procedures (CONTAINS) and a big local array (64 MB), and a
! subroutine with another (32 MB): the converted program must end its runtime before
! CONTAINS, and the big arrays must not overflow the stack (gfortran's -fopenmp puts local
! arrays there; the sequential build keeps them in static storage).
program cont
  implicit none
  integer, parameter :: n = 8000000
  double precision :: big(n), s
  integer :: i
  do i = 1, n
    big(i) = dble(mod(i, 17))
  end do
  s = total(big)
  print '(a, f20.2)', ' total ', s
  call work(s)
contains
  double precision function total(x)
    double precision, intent(in) :: x(:)
    integer :: k
    total = 0
    do k = 1, size(x)
      total = total + x(k)
    end do
  end function
end program cont

! a subroutine with a big local array (32 MB): on the stack under -fopenmp
subroutine work(s)
  implicit none
  double precision, intent(in) :: s
  double precision :: tmp(4000000)
  integer :: i
  do i = 1, size(tmp)
    tmp(i) = s / i
  end do
  print '(a, f20.6)', ' work ', sum(tmp(1:10))
end subroutine work
