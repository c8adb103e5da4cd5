! ALLOCATE and DEALLOCATE with STAT=, ERRMSG= and SOURCE= (the style of PolyBench/Fortran):
! the STAT variable is set by the statement, SOURCE= is read, bounds are read.
program alloc_stat
  implicit none
  real(kind=8), dimension(:,:), allocatable :: a, b
  real(kind=8), dimension(:), allocatable :: w, v
  integer :: ierr, i, j, n
  character(len=80) :: msg
  n = 200
  ierr = -1
  allocate(a(n, n), stat=ierr)
  if (ierr /= 0) stop 1
  allocate(b(n, n), STAT=ierr, ERRMSG=msg)
  call check(ierr)
  b = 0
  do j = 1, n
    do i = 1, n
      a(i, j) = dble(i + 2 * j) / n
    end do
  end do
  call smooth(n, a, b, 5)
  allocate(w(n))
  do i = 1, n
    w(i) = sum(b(:, i))
  end do
  allocate(v, source=w)
  deallocate(w, stat=ierr)
  print '(a, i3)', 'stat after deallocate:', ierr
  print '(3f16.8)', sum(v), v(1), v(n)
  deallocate(a, b, v)
contains
  subroutine check(k)
    integer, intent(in) :: k
    if (k /= 0) stop 2
  end subroutine
end program

subroutine smooth(n, a, b, steps)
  implicit none
  integer :: n, steps, i, j, t, ierr
  real(kind=8) :: a(n, n), b(n, n)
  real(kind=8), allocatable :: row(:)
  do t = 1, steps
    do j = 2, n - 1
      do i = 2, n - 1
        b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
      end do
    end do
    do j = 2, n - 1
      do i = 2, n - 1
        a(i, j) = b(i, j)
      end do
    end do
  end do
  allocate(row(n), stat=ierr)
  if (ierr /= 0) stop 3
  do i = 1, n
    row(i) = a(i, n / 2)
  end do
  b(:, 1) = row
  deallocate(row)
end subroutine
