! An array aligned only with template dimensions the variant does not distribute (B with
! C(I+1,*,*) under C(*,BLOCK,*)) and written in a parallel loop split along another
! dimension: declared aligned, each process updated only the part of B its iterations
! wrote (fuzzer seed 7230; the variant became possible once the stepped loop below ran on
! every process instead of rejecting it). Not aligned, B is an ordinary replicated array.
program al
  integer n1, n2, n3
  parameter (n1 = 10, n2 = 10, n3 = 7)
  integer b(n1,n2), e(n1,n2), c(n1,n2,n3), i, j, k, cs
!$SPF DISTRIBUTE C(*,BLOCK,*)
  do j = 1, n2
    do i = 1, n1
      b(i,j) = mod(i * 3 + j * 9, 101)
      e(i,j) = mod(i + j * j, 53)
    end do
  end do
  do k = 1, n3
    do j = 1, n2
      do i = 1, n1
        c(i,j,k) = mod(i * j + k * 4 + e(i,j), 71)
      end do
    end do
  end do
  do j = 8, 3, -2
    do i = 3, 8
      b(i,j+1) = mod(c(i+1,j-2,7)+2*b(i-1,j-1)+2*c(i,j,1), 1000)
    end do
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
