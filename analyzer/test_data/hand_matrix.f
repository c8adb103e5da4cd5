C     Vectors laid out by hand as matrices, with the leading dimension
C     in a variable (NPB FT's PLANE): W(J-JB+1+LD*(I-1)), filled and
C     read inline, or through a matrix dummy V(LD,N). With LD = NB + 1
C     each row of W lies inside LD elements (J-JB+1 is in 1..JE-JB+1
C     and JE <= JB+NB-1), so elements are equal exactly when both parts
C     are: the copy loops are parallel and W is private in the loop over
C     planes. With LD = NB - 1 a row overlaps the next unless one block
C     holds all of N2 (NB > N2): the loops are parallel under that test.
      program hmat
      integer n1, n2, n3
      parameter (n1 = 8, n2 = 12, n3 = 6)
      double precision x(n1, n2, n3), y(n1, n2, n3), z(n1, n2, n3)
      integer i, j, k
C EXPECT: parallel
      do k = 1, n3
C EXPECT: parallel
        do j = 1, n2
C EXPECT: parallel
          do i = 1, n1
            x(i, j, k) = i + 10 * j + 100 * k
            y(i, j, k) = x(i, j, k)
            z(i, j, k) = x(i, j, k)
          end do
        end do
      end do
      call pass(x, n1, n2, n3, 5)
      call tight(y, n1, n2, n3, 5)
      call tight(y, n1, n2, n3, 13)
      call bycall(z, n1, n2, n3, 5)
      write (*, '(4F12.1)') x(1,1,1), x(n1,n2,n3), x(3,5,2), x(7,11,5)
      write (*, '(F16.1)') sum(x)
      write (*, '(4F12.1)') y(1,1,1), y(n1,n2,n3), y(3,5,2), y(7,11,5)
      write (*, '(F16.1)') sum(y)
      write (*, '(4F12.1)') z(1,1,1), z(n1,n2,n3), z(3,5,2), z(7,11,5)
      write (*, '(F16.1)') sum(z)
      end

C     LD = NB + 1 leaves each row of W its own elements
      subroutine pass(x, n1, n2, n3, nb)
      integer n1, n2, n3, nb
      double precision x(n1, n2, n3), w(4096)
      integer i, j, k, jb, je, ld
      ld = nb + 1
C EXPECT: parallel private(je,w)
      do k = 1, n3
C EXPECT: sequential private(je) blockers(dep)
        do jb = 1, n2, nb
          je = jb + nb - 1
          if (je .gt. n2) je = n2
C EXPECT: parallel
          do j = jb, je
C EXPECT: parallel
            do i = 1, n1
              w(j-jb+1+ld*(i-1)) = x(i, j, k)
            end do
          end do
C EXPECT: parallel
          do j = jb, je
C EXPECT: parallel
            do i = 2, n1
              x(i, j, k) = w(j-jb+1+ld*(i-1)) + 2 * w(j-jb+1+ld*(i-2))
            end do
          end do
        end do
      end do
      end

C     LD = NB - 1: a row of W overlaps the next one
      subroutine tight(x, n1, n2, n3, nb)
      integer n1, n2, n3, nb
      double precision x(n1, n2, n3), w(4096)
      integer i, j, k, jb, je, ld
      ld = nb - 1
C EXPECT: sequential private(je) blockers(dep) when[NB .GE. N2 + 1; NB .GE. 2] vprivate(je,w)
      do k = 1, n3
C EXPECT: sequential private(je) blockers(dep)
        do jb = 1, n2, nb
          je = jb + nb - 1
          if (je .gt. n2) je = n2
C EXPECT: sequential blockers(dep) when[NB .GE. N2 + 1; NB .GE. 2]
          do j = jb, je
C EXPECT: sequential blockers(dep) when[NB .GE. N2 + 1; NB .GE. 2]
            do i = 1, n1
              w(j-jb+1+ld*(i-1)) = x(i, j, k)
            end do
          end do
C EXPECT: parallel
          do j = jb, je
C EXPECT: parallel
            do i = 2, n1
              x(i, j, k) = w(j-jb+1+ld*(i-1)) + 2 * w(j-jb+1+ld*(i-2))
            end do
          end do
        end do
      end do
      end

C     W in COMMON, given to a matrix dummy between the copies
      subroutine bycall(x, n1, n2, n3, nb)
      integer n1, n2, n3, nb
      double precision x(n1, n2, n3), w(4096)
      common /work/ w
      integer i, j, k, jb, je, ld, len
      ld = nb + 1
C EXPECT: parallel private(je,len,w)
      do k = 1, n3
C EXPECT: sequential private(je,len) blockers(dep,call)
        do jb = 1, n2, nb
          je = jb + nb - 1
          if (je .gt. n2) je = n2
          len = je - jb + 1
C EXPECT: parallel
          do j = jb, je
C EXPECT: parallel
            do i = 1, n1
              w(j-jb+1+ld*(i-1)) = x(i, j, k)
            end do
          end do
          call mix(w, ld, len, n1)
C EXPECT: parallel
          do j = jb, je
C EXPECT: parallel
            do i = 1, n1
              x(i, j, k) = w(j-jb+1+ld*(i-1))
            end do
          end do
        end do
      end do
      end

      subroutine mix(v, ld, len, n)
      integer ld, len, n, i, j
      double precision v(ld, n)
C EXPECT: across
      do i = n, 2, -1
C EXPECT: parallel
        do j = 1, len
          v(j, i) = v(j, i) + 3 * v(j, i - 1)
        end do
      end do
      end
