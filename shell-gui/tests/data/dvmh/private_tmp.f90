! DVMH test: a loop nest with a private temporary (T) and a private
! work variable of an inner loop (K), then a reduction.
program private_tmp
  implicit none
  integer, parameter :: n = 300, m = 8
  double precision :: x(n,n), y(n,n), t, total
  integer :: i, j, k
  do j = 1, n
    do i = 1, n
      x(i,j) = dble(mod(i * 31 + j * 17, 101)) / 101.0d0
    end do
  end do
  do j = 1, n
    do i = 1, n
      t = x(i,j) * x(i,j)
      do k = 1, m
        t = 0.5d0 * t + 0.25d0 * dble(k)
      end do
      y(i,j) = t + x(i,j)
    end do
  end do
  total = 0.0d0
  do j = 1, n
    do i = 1, n
      total = total + y(i,j)
    end do
  end do
  print '(a, f20.8)', ' total =', total
end program private_tmp
