! Fuzzer seed 4102 (session 7): the expert put a loop with step -1 into an ACROSS tuple,
! which the runtime cannot pipeline; the converter refused the program. A stepped loop now
! stays out of the tuple.
! fuzz program, form free
  program fz
  integer n1, n2, n3
  parameter (n1 = 9, n2 = 7, n3 = 7)
  integer a(n1), d(n1), idx(n1), b(n1,n2), e(n1,n2), c(n1,n2,n3)
  integer i, j, k, it, s, t, m, im, p, q, cs
  integer ifn, icn
  integer f(n1 + 2), g(n1)
  equivalence (f(1), g(1))
  do i = 1, n1
    a(i) = mod(i * 15 + 3, 97)
    d(i) = mod(i * i + 4, 89)
    idx(i) = n1 + 1 - i
  end do
  do i = 1, n1 + 2
    f(i) = mod(i * 9, 61)
  end do
  do j = 1, n2
    do i = 1, n1
      b(i,j) = mod(i * 5 + j * 2, 101)
      e(i,j) = mod(i + j * j, 53)
    end do
  end do
  do k = 1, n3
    do j = 1, n2
      do i = 1, n1
        c(i,j,k) = mod(i * j + k * 4, 71)
      end do
    end do
  end do
  s = 1
  do i = 7, 3, -2
    s = mod(s * 3 + a(i+2), 10007)
  end do
  print *, 'recur', s
  m = -1
  do i = 3, 7
    m = max(m, a(i+1))
  end do
  print *, 'max', m
  do i = 1, n1
    if (a(i) .gt. 500) then
      d(i) = a(i) - 500
    else if (a(i) .gt. 200) then
      d(i) = d(i) + 1
    else
      d(i) = mod(d(i) * 2, 1000)
    end if
  end do
  do k = 3, 5, 2
    do i = 3, k
      do j = 3, k
        t = 5+c(i+1,j-1,k)+2*c(i+2,j+1,k+1)
        c(i,j+1,k+1) = mod(t + c(i,j+1,k+1), 1000)
      end do
    end do
  end do
  do j = 1, n2
    call col(b(1,j), e(1,j), j)
  end do
  do it = 1, 3
    do k = 3, 5
      do j = 3, 5
        do i = 7, 3, -1
          c(i,j,k) = mod(3*c(i+2,j+1,k+1)+2*c(i,j+2,k), 1000)
        end do
      end do
    end do
  end do
  do i = 1, n1
    a(idx(i)) = mod(a(idx(i)) + d(i), 1000)
  end do
  cs = 0
  do i = 1, n1
    cs = mod(cs * 31 + a(i) + 7, 1000003)
  end do
  print *, 'a', cs
  cs = 0
  do i = 1, n1
    cs = mod(cs * 31 + d(i) + 7, 1000003)
  end do
  print *, 'd', cs
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
  cs = 0
  do k = 1, n3
    do j = 1, n2
      do i = 1, n1
        cs = mod(cs * 31 + c(i,j,k) + 7, 1000003)
      end do
    end do
  end do
  print *, 'c', cs
  cs = 0
  do i = 1, n1 + 2
    cs = mod(cs * 31 + f(i) + 7, 1000003)
  end do
  print *, 'f', cs
  end

  subroutine col(x, y, j)
    integer x(9), y(9), j, i
    do i = 1, 9
    x(i) = mod(x(i) + y(i) + i * j, 1000)
    end do
  end
