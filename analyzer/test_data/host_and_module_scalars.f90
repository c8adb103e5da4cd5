! A module procedure that sets a module variable in a loop, and an internal
! procedure that sets a variable of its host: the values outlive the call,
! so neither is private (both loops sequential). A variable the internal
! procedure declares itself is its own: private, and the loop parallel.
module hmods
  implicit none
  integer :: mflag
contains
  subroutine msub(a, n)
    integer :: n, i
    integer :: a(n)
    ! EXPECT: sequential blockers(scalar)
    do i = 1, n
      if (a(i) > 3) mflag = i
    end do
  end subroutine
end module

program hmain
  use hmods
  implicit none
  integer :: a(10), b(10), i, hflag, t
  ! EXPECT: parallel
  do i = 1, 10
    a(i) = i
  end do
  hflag = 0
  call msub(a, 10)
  call isub()
  print *, mflag, hflag, b(3)
contains
  subroutine isub()
    integer :: j, t
    ! EXPECT: sequential blockers(scalar)
    do j = 1, 10
      if (a(j) > 5) hflag = j
    end do
    ! EXPECT: parallel private(t)
    do j = 1, 10
      t = a(j) * 2
      b(j) = t + 1
    end do
  end subroutine
end program
