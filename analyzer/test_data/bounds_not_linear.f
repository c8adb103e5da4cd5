C     Loops whose bounds are not linear forms (issue 17, false blockers):
C     a bound read from an array the unit assigns, CSR row bounds
C     IA(J):IA(J+1)-1, a start that depends on the outer variable (a
C     red-black sweep).  Only the subscripts that use such a loop's
C     variable are unknown, and the loop's own iterations are still
C     compared exactly.  A scalar assigned a constant before the loop
C     (NL1 = 1) stands for the constant.
      program bnl
      integer n, i, j, k, nl1, g(3), ia(11)
      parameter (n = 10)
      double precision a(0:n, 0:n), b(0:n), c(40)
      g(1) = n
C EXPECT: parallel
      do i = 0, n
         b(i) = i
C EXPECT: parallel
         do j = 0, n
            a(i, j) = i + j
         end do
      end do
C     back substitution down from G(1)-2 in every column
C EXPECT: parallel
      do j = 1, n
C EXPECT: across
         do i = g(1) - 2, 0, -1
            a(i, j) = a(i, j) - 2 * a(i + 1, j)
         end do
      end do
      nl1 = 1
C EXPECT: across
      do i = 1, n - 1
         b(i) = b(i + nl1) + 1
      end do
      ia(1) = 1
C EXPECT: across
      do i = 1, 10
         ia(i + 1) = ia(i) + 4
      end do
C     CSR rows: the rows are not known to be disjoint, the elements of
C     one row are
C EXPECT: sequential blockers(dep)
      do j = 1, 10
C EXPECT: parallel
         do k = ia(j), ia(j + 1) - 1
            c(k) = j * 2 + k
         end do
      end do
C     red-black: the points with I+J odd, reading only points with I+J
C     even (I is J+1 modulo 2: test_data/red_black.f)
C EXPECT: parallel
      do j = 1, n
C EXPECT: parallel
         do i = mod(j, 2) + 1, n, 2
            a(i, j) = a(i - 1, j) + a(i, j - 1)
         end do
      end do
      print *, a(3, 4), a(7, 7), b(5), c(7), c(40)
      end
