! The shape of PolyBench/Fortran: the main program allocates its arrays (constant bounds,
! STAT=) and hands them to kernel subroutines with explicit-shape dummies.
program alloc_kernel
  implicit none
  integer, parameter :: n = 600, steps = 40
  real(kind=8), dimension(:,:), allocatable :: a, b
  integer :: i
  allocate(a(n, n), STAT=i); call check_err(i)
  allocate(b(n, n), STAT=i); call check_err(i)
  call init_array(n, a, b)
  call kernel_jacobi(steps, n, a, b)
  call checksum(n, a)
  deallocate(a)
  deallocate(b)
contains
  subroutine check_err(k)
    integer :: k
    if (k /= 0) stop 'allocation failed'
  end subroutine
  subroutine init_array(n, a, b)
    integer :: n, i, j
    real(kind=8), dimension(n, n) :: a, b
    do i = 1, n
      do j = 1, n
        a(j, i) = (dble(i - 1) * dble(j + 1) + 2) / n
        b(j, i) = (dble(i - 1) * dble(j + 2) + 3) / n
      end do
    end do
  end subroutine
  subroutine checksum(n, a)
    integer :: n, i, j
    real(kind=8), dimension(n, n) :: a
    real(kind=8) :: s
    s = 0
    do i = 1, n
      do j = 1, n
        s = s + a(j, i) * mod(i + j, 7)
      end do
    end do
    print '(a, f24.10)', 'checksum', s
    print '(3f20.10)', a(2, 2), a(n / 2, n / 3), a(n - 1, n - 1)
  end subroutine
end program

subroutine kernel_jacobi(tsteps, n, a, b)
  implicit none
  integer :: n, tsteps, i, j, t
  real(kind=8), dimension(n, n) :: a, b
  do t = 1, tsteps
    do i = 2, n - 1
      do j = 2, n - 1
        b(j, i) = 0.2d0 * (a(j, i) + a(j - 1, i) + a(1 + j, i) + a(j, 1 + i) + a(j, i - 1))
      end do
    end do
    do i = 2, n - 1
      do j = 2, n - 1
        a(j, i) = b(j, i)
      end do
    end do
  end do
end subroutine
