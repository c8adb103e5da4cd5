c     Work arrays handed to a procedure that sees them with another
c     shape (NPB LU's TV: SSOR's TV(5*NX*NY) is BUTS's TV(5,LDX,LDY)).
c     SWEEP writes TV in one parallel loop and reads and updates it in
c     the next, always at the iteration's own (I,J): each element is
c     only ever touched by the process owning V(*,I,J,K), so the copies
c     need not be merged. SMOOTH reads its TW at I+1 and J+1, elements
c     other processes write: its copies are merged.
      program owned
      integer nx, ny, nz
      parameter (nx = 12, ny = 14, nz = 6)
      double precision v(5, nx, ny, nz), tv(5 * nx * ny)
      double precision tw(5 * nx * ny), s
      integer i, j, k, m, it
      do k = 1, nz
         do j = 1, ny
            do i = 1, nx
               do m = 1, 5
                  v(m, i, j, k) = 1.0d0 + mod(i * 7 + j * 3 + k + m, 11)
               end do
            end do
         end do
      end do
      do it = 1, 3
         do k = 2, nz - 1
            call sweep(nx, ny, nz, k, v, tv)
         end do
         do k = nz - 1, 2, -1
            call smooth(nx, ny, nz, k, v, tw)
         end do
      end do
      s = 0.0d0
      do k = 1, nz
         do j = 1, ny
            do i = 1, nx
               do m = 1, 5
                  s = s + v(m, i, j, k) * (m + i + 2 * j + 3 * k)
               end do
            end do
         end do
      end do
      write (*, '(a, f20.6)') 's', s
      end

      subroutine sweep(ldx, ldy, ldz, k, v, tv)
      integer ldx, ldy, ldz, k
      double precision v(5, ldx, ldy, ldz), tv(5, ldx, ldy)
      integer i, j, m
      do j = 2, ldy - 1
         do i = 2, ldx - 1
            do m = 1, 5
               tv(m, i, j) = 0.25d0 * v(m, i, j, k - 1)
            end do
         end do
      end do
      do j = 2, ldy - 1
         do i = 2, ldx - 1
            do m = 1, 5
               tv(m, i, j) = tv(m, i, j) + 0.125d0 * v(m, i, j, k + 1)
            end do
            tv(2, i, j) = tv(2, i, j) - 0.5d0 * tv(1, i, j)
            do m = 1, 5
               v(m, i, j, k) = 0.5d0 * v(m, i, j, k)
     >              + 0.1d0 * tv(m, i, j)
            end do
         end do
      end do
      end

      subroutine smooth(ldx, ldy, ldz, k, v, tw)
      integer ldx, ldy, ldz, k
      double precision v(5, ldx, ldy, ldz), tw(5, ldx, ldy)
      integer i, j, m
      do j = 1, ldy
         do i = 1, ldx
            do m = 1, 5
               tw(m, i, j) = 0.3d0 * v(m, i, j, k)
            end do
         end do
      end do
      do j = 2, ldy - 1
         do i = 2, ldx - 1
            do m = 1, 5
               v(m, i, j, k) = 0.5d0 * v(m, i, j, k)
     >              + 0.1d0 * (tw(m, i + 1, j) + tw(m, i, j + 1))
            end do
         end do
      end do
      end
