! Found by the fuzzer (seed 53), reduced by scripts/fuzz.py --reduce, then tidied by hand.
! A region writes E on the accelerator; a subroutine then gets its columns, X(31) over
! E(1,J). The ACTUAL(X) the expert writes in COL named the storage of E with a rank-1 box:
! the emulated run died (PCS operation on sets of different rank) at J = 1, and for J > 1
! the box was ignored. The runtime now finds a dummy's elements by storage offset.
program colact
  integer n1, n2
  parameter (n1 = 31, n2 = 21)
  integer e(n1,n2), c(n1,n2,6)
  integer i, j, k, cs
  do j = 1, n2
    do i = 1, n1
      e(i,j) = mod(i + j * j, 53)
    end do
  end do
  do k = 1, 6
    do j = 1, n2
      do i = 1, n1
        c(i,j,k) = mod(i * j + k * 2, 71)
      end do
    end do
  end do
  do j = 1, n2
    call col(e(1,j), e(1,j), j)
  end do
  cs = 0
  do j = 1, n2
    do i = 1, n1
      cs = mod(cs * 31 + e(i,j) + 7, 1000003)
    end do
  end do
  print *, 'e', cs, c(3,4,5)
end

subroutine col(x, y, j)
  integer x(31), y(31), j, i
  do i = 1, 31
    x(i) = mod(x(i) + y(i) + i * j, 1000)
  end do
end
