c     A work array in COMMON that a called procedure fills through the block (the shape
c     of NPB SP's X_SOLVE and LHSINIT): private to each iteration of the K loop of SOLVE,
c     to each process and, THREADPRIVATE, to each thread.
      program wl
      integer n
      parameter (n = 40)
      double precision u(0:n,n,n), r(0:n,n,n)
      double precision lhs(5,0:n,n), cv(0:n)
      common /wlhs/ lhs
      common /w1d/ cv
      integer i, j, k, it
      double precision s
      do k = 1, n
         do j = 1, n
            do i = 0, n
               u(i,j,k) = dble(i + 2*j + 3*k) / dble(n)
            end do
         end do
      end do
      do it = 1, 3
         call solve(u, r, n)
         do k = 1, n
            do j = 1, n
               do i = 0, n
                  u(i,j,k) = 0.5d0 * (u(i,j,k) + r(i,j,k))
               end do
            end do
         end do
      end do
      s = 0
      do k = 1, n
         do j = 1, n
            do i = 0, n
               s = s + u(i,j,k) * dble(i + j + k)
            end do
         end do
      end do
      print '(a, es22.14)', 'checksum', s
      end

      subroutine init(ni, nj)
      integer ni, nj, j, m
      double precision lhs(5,0:40,40)
      common /wlhs/ lhs
      do j = 1, nj
         do m = 1, 5
            lhs(m,0,j) = 0.0d0
            lhs(m,ni,j) = 0.0d0
         end do
         lhs(3,0,j) = 1.0d0
         lhs(3,ni,j) = 1.0d0
      end do
      end

      subroutine solve(u, r, n)
      integer n, i, j, k, m
      double precision u(0:n,n,n), r(0:n,n,n)
      double precision lhs(5,0:40,40), cv(0:40)
      common /wlhs/ lhs
      common /w1d/ cv
      do k = 1, n
         call init(n, n)
         do j = 1, n
            do i = 0, n
               cv(i) = u(i,j,k) * 0.1d0
            end do
            do i = 1, n-1
               lhs(1,i,j) = 0.0d0
               lhs(2,i,j) = -cv(i-1)
               lhs(3,i,j) = 2.0d0 + cv(i)
               lhs(4,i,j) = -cv(i+1)
               lhs(5,i,j) = 0.0d0
            end do
         end do
         do j = 1, n
            r(0,j,k) = u(0,j,k)
            do i = 1, n
               r(i,j,k) = (u(i,j,k) - lhs(2,i,j)*r(i-1,j,k))
     >                    / lhs(3,i,j)
            end do
            do i = n-1, 0, -1
               r(i,j,k) = r(i,j,k) - lhs(4,i,j) * r(i+1,j,k) * 0.1d0
            end do
         end do
      end do
      end
