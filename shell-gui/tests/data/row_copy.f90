! E is written beside B in a loop over both of B's dimensions, but is
! aligned along its first dimension only (E(I,*) WITH C(I,*,*)): on a grid
! that divides the loop along J, E has a copy on every process of that axis.
program rowcopy
  integer n1, n2, n3
  parameter (n1 = 11, n2 = 9, n3 = 7)
  integer b(n1,n2), e(n1,n2), c(n1,n2,n3), i, j, k, cs
  do j = 1, n2
    do i = 1, n1
      b(i,j) = mod(i * 6 + j * 4, 101)
      e(i,j) = mod(i + j * j, 53)
    end do
  end do
  do k = 1, n3
    do j = 1, n2
      do i = 1, n1
        c(i,j,k) = mod(i * j + k * 3, 71)
      end do
    end do
  end do
  do i = 3, 9
    do j = 7, 3, -2
      b(i,j) = mod(3 * c(i,j+1,7), 1000)
    end do
  end do
  do i = 3, 9
    e(i,5) = mod(2 * c(i,7,4) + e(i,5), 1000)
  end do
  cs = 0
  do j = 1, n2
    do i = 1, n1
      cs = mod(cs * 31 + b(i,j) + 7, 1000003)
    end do
  end do
  print *, 'b', cs
  cs = 0
  do j = 1, n2
    do i = 1, n1
      cs = mod(cs * 31 + e(i,j) + 7, 1000003)
    end do
  end do
  print *, 'e', cs
end program
