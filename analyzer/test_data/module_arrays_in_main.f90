! A main program working on arrays of a module it does not declare itself. Module
! variables are not analyzed yet: their reads look like calls of an unknown function, so a
! loop writing one must not make it private (it did: the first loop was "parallel,
! private(A)", the region lost A's values and the program printed 0).
module fld
  implicit none
  integer, parameter :: n = 300
  double precision :: a(n,n), b(n,n)
end module fld

program module_arrays
  use fld
  implicit none
  integer :: i, j, it
  double precision :: s
  ! EXPECT: sequential blockers(call)
  do j = 1, n
    ! EXPECT: sequential blockers(call)
    do i = 1, n
      a(i,j) = i + 2*j
    end do
  end do
  ! EXPECT: sequential blockers(call)
  do it = 1, 3
    do j = 2, n-1
      do i = 2, n-1
        b(i,j) = a(i-1,j) + a(i+1,j) + a(i,j-1) + a(i,j+1)
      end do
    end do
    do j = 2, n-1
      do i = 2, n-1
        a(i,j) = b(i,j) * 0.25d0
      end do
    end do
  end do
  s = 0
  ! EXPECT: sequential blockers(call)
  do j = 1, n
    do i = 1, n
      s = s + a(i,j)
    end do
  end do
  print '(a, f20.6)', ' sum', s
end program module_arrays
