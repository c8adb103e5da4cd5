! DVMH test: kernels compute with integer, real and logical data only. The loop on COMPLEX
! arrays (FT's evolve) stays an ordinary host loop, with no region copying its arrays to the
! accelerator and back; the REAL loop next to it is a region.
program cplx
  implicit none
  integer, parameter :: n = 100000
  double complex :: x(n), y(n)
  double precision :: w(n), s
  integer :: i
  do i = 1, n
    w(i) = dble(mod(i, 7)) / 7.0d0
  end do
  do i = 1, n
    y(i) = dcmplx(w(i), 1.0d0 - w(i))
    x(i) = y(i) * w(i)
  end do
  s = 0.0d0
  do i = 1, n
    s = s + dble(x(i)) + w(i)
  end do
  print '(a, f20.6)', ' s =', s
end program cplx
