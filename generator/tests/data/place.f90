subroutine long_header(a, &
     b)
  real :: a(10), b(10)
  integer :: i
  i = 1; a(i) = b(i)
  do i = 1, 10
    a(i) = b(i)
  end do
end subroutine long_header

subroutine bare(a, &
                n)
  ! no declarations at all
  call work(a, n)
end subroutine bare

subroutine shared(a)
  real :: a(10)
  integer :: i
  a(1) = 0.; do i = 2, 10
    a(i) = a(i - 1) + 1.
  end do
end subroutine shared
