! Procedures whose bodies are not in the program (here the C library's
! rand and srand, declared by an interface block only).  Their side
! effects are unknown to the analyzer (in fact they update a hidden
! random state), so loops that call them are sequential: blocker call.
program call_external_unknown
  use iso_c_binding, only: c_int
  implicit none
  interface
    function c_rand() bind(c, name='rand') result(r)
      import :: c_int
      integer(c_int) :: r
    end function c_rand
    subroutine c_srand(seed) bind(c, name='srand')
      import :: c_int
      integer(c_int), value :: seed
    end subroutine c_srand
  end interface
  integer, parameter :: n = 8
  integer :: i, k(n), total

  call c_srand(12345_c_int)
  ! EXPECT: sequential blockers(call)
  do i = 1, n
    k(i) = mod(c_rand(), 100)
  end do

  ! EXPECT: sequential blockers(call)
  do i = 1, n
    call c_srand(int(i, c_int))
    k(i) = k(i) + mod(c_rand(), 10)
  end do

  total = 0
  ! EXPECT: parallel reduction(sum:total)
  do i = 1, n
    total = total + k(i)
  end do
  print '(a, i8)', ' total =', total
end program call_external_unknown
