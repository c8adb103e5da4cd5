! DO WHILE loops carry no expectation line (they are not checked); the
! counted DO loops inside them are.  A 1-D relaxation runs until the
! change is small: the stencil loop is parallel, the convergence loop
! is a parallel max reduction.
program do_while_inner_loops
  implicit none
  integer, parameter :: n = 20, maxit = 500
  real, parameter :: tol = 1.0e-3
  real :: a(n), b(n), err
  integer :: i, iter

  ! EXPECT: parallel
  do i = 1, n
    a(i) = 0.0
    b(i) = 0.0
  end do
  a(n) = 1.0
  b(n) = 1.0

  iter = 0
  err = 1.0
  do while (err > tol .and. iter < maxit)
    iter = iter + 1
    ! EXPECT: parallel
    do i = 2, n - 1
      b(i) = 0.5 * (a(i-1) + a(i+1))
    end do
    err = 0.0
    ! EXPECT: parallel reduction(max:err)
    do i = 2, n - 1
      err = max(err, abs(b(i) - a(i)))
      a(i) = b(i)
    end do
  end do

  print '(a, i5, a, f8.4)', ' iterations =', iter, '  a(n/2) =', a(n/2)
end program do_while_inner_loops
