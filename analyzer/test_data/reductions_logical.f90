! Logical reductions: .and., .or., .eqv., .neqv. accumulations.
program reductions_logical
  implicit none
  integer, parameter :: n = 10
  real :: x(n)
  integer :: k(n), i
  logical :: all_pos, any_big, peqv, parity, l1, l2

  ! EXPECT: parallel
  do i = 1, n
    x(i) = real(i) - 0.5
    k(i) = i * i + 1
  end do

  all_pos = .true.
  ! EXPECT: parallel reduction(and:all_pos)
  do i = 1, n
    all_pos = all_pos .and. (x(i) > 0.0)
  end do

  any_big = .false.
  ! EXPECT: parallel reduction(or:any_big)
  do i = 1, n
    any_big = any_big .or. x(i) > 8.0
  end do

  peqv = .true.
  ! EXPECT: parallel reduction(eqv:peqv)
  do i = 1, n
    peqv = peqv .eqv. (mod(k(i), 2) == 0)
  end do

  parity = .false.
  ! EXPECT: parallel reduction(neqv:parity)
  do i = 1, n
    parity = parity .neqv. (mod(k(i), 3) == 1)
  end do

  l1 = .true.
  l2 = .false.
  ! EXPECT: parallel reduction(and:l1,or:l2)
  do i = 1, n
    l1 = l1 .and. k(i) < 200
    l2 = l2 .or. k(i) == 50
  end do

  print '(6l2)', all_pos, any_big, peqv, parity, l1, l2
end program reductions_logical
