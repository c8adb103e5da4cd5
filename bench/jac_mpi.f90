! Hand-written MPI reference for the runtime benchmark: the Jacobi of
! bench/jac2d.fdv (2000x2000, 100 iterations), columns split in blocks over
! the processes, one-column halo exchange with MPI_Sendrecv, MAX reduction
! with MPI_Allreduce. Same arithmetic and output as the sequential program.
program jac_mpi
  use mpi
  implicit none
  integer, parameter :: l = 2000, itmax = 100
  real, allocatable :: a(:,:), b(:,:)
  real :: eps, maxeps, leps
  integer :: i, j, it, ierr, rank, np, jlo, jhi, nb, lo, hi, left, right
  integer :: st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  nb = (l + np - 1) / np
  jlo = rank * nb + 1
  jhi = min(l, jlo + nb - 1)
  lo = max(1, jlo - 1)
  hi = min(l, jhi + 1)
  left = merge(rank - 1, MPI_PROC_NULL, rank > 0)
  right = merge(rank + 1, MPI_PROC_NULL, rank < np - 1)
  allocate(a(l, lo:hi), b(l, lo:hi))
  maxeps = 0.5e-7
  do j = jlo, jhi
    do i = 1, l
      a(i, j) = 0.
      if (i == 1 .or. j == 1 .or. i == l .or. j == l) then
        b(i, j) = 0.
      else
        b(i, j) = (1. + i + j)
      end if
    end do
  end do
  do it = 1, itmax
    leps = 0.
    do j = max(2, jlo), min(l - 1, jhi)
      do i = 2, l - 1
        leps = max(leps, abs(b(i, j) - a(i, j)))
        a(i, j) = b(i, j)
      end do
    end do
    call MPI_Allreduce(leps, eps, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
    ! halo: my last column to the right neighbour's low shadow and back
    call MPI_Sendrecv(a(1, jhi), l, MPI_REAL, right, 1, a(1, lo), l, MPI_REAL, left, 1, &
                      MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(a(1, jlo), l, MPI_REAL, left, 2, a(1, hi), l, MPI_REAL, right, 2, &
                      MPI_COMM_WORLD, st, ierr)
    do j = max(2, jlo), min(l - 1, jhi)
      do i = 2, l - 1
        b(i, j) = (a(i-1, j) + a(i, j-1) + a(i+1, j) + a(i, j+1)) / 4
      end do
    end do
    if (rank == 0) print 200, it, eps
200 format (' IT = ', i4, '   EPS = ', e14.7)
    if (eps < maxeps) exit
  end do
  call MPI_Finalize(ierr)
end program
