! A POINTER may point into any TARGET: q => a(2:n) makes a(i) = q(i) + 1 read the element
! the next iteration writes (issue 15: this loop was called parallel). The statement forms
! TARGET :: and POINTER :: count too; a loop that only reads both names stays parallel.
program pointer_alias
  implicit none
  integer, parameter :: n = 100
  real(8), target :: a(n)
  real(8) :: b(n), c(n)
  real(8), pointer :: q(:)
  real(8), pointer :: r(:)
  target :: b
  integer :: i
  real(8) :: s
  ! EXPECT: parallel
  do i = 1, n
    a(i) = i
    b(i) = 2 * i
    c(i) = 0
  end do
  q => a(2:n)
  r => b
  ! EXPECT: sequential blockers(alias)
  do i = 1, n - 1
    a(i) = q(i) + 1
  end do
  ! EXPECT: sequential blockers(alias)
  do i = 1, n - 1
    r(i) = b(i + 1) * 2
  end do
  ! EXPECT: parallel
  do i = 1, n - 1
    c(i) = q(i) + b(i)
  end do
  s = 0
  ! EXPECT: parallel reduction(sum:s)
  do i = 1, n
    s = s + a(i) + b(i) + c(i)
  end do
  print *, s
end program pointer_alias
