! DVMH test: between two regions the host rewrites the border of an
! array, then reads only its interior.  Only the border must go back to
! the accelerator (ACTUAL after the host loops) and only the interior
! must come to the host (GET_ACTUAL before the read).
program border
  implicit none
  integer, parameter :: n = 400
  double precision :: a(n,n), b(n,n), s
  integer :: i, j
  do j = 1, n
    do i = 1, n
      a(i,j) = dble(i) + 0.5d0 * dble(j)
    end do
  end do
  ! the host sets the border (a recurrence: these loops stay sequential)
  a(1,1) = 0.0d0
  a(1,n) = 1.0d0
  do i = 2, n
    a(i,1) = 0.5d0 * a(i-1,1) + 1.0d0
    a(i,n) = 0.25d0 * a(i-1,n) + 2.0d0
  end do
  do j = 2, n - 1
    a(1,j) = 0.5d0 * a(1,j-1) + 3.0d0
    a(n,j) = 0.75d0 * a(n,j-1) + 1.0d0
  end do
  ! the accelerator smooths the interior using the border
  do j = 2, n - 1
    do i = 2, n - 1
      b(i,j) = 0.25d0 * a(i,j) + 0.125d0 * (a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1))
    end do
  end do
  do j = 2, n - 1
    do i = 2, n - 1
      a(i,j) = b(i,j)
    end do
  end do
  ! the host reads the interior only
  s = 0.0d0
  do j = 2, n - 1
    do i = 2, n - 1
      s = s + a(i,j) * mod(i + j, 3)
    end do
    if (s > 1.0d30) print *, 'overflow'
  end do
  print '(a, f20.6)', ' interior sum =', s
end program border
