! DVMH test: a time loop whose state stays on the accelerator; every
! NOUT steps the host prints a value, so the state comes back only then
! (GET_ACTUAL at the I/O, not on every iteration).
program every_n
  implicit none
  integer, parameter :: n = 200000, nsteps = 60, nout = 20
  double precision :: u(n), v(n)
  integer :: i, step
  do i = 1, n
    u(i) = dble(mod(i * 13, 97))
    v(i) = 0.0d0
  end do
  do step = 1, nsteps
    do i = 2, n - 1
      v(i) = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
    end do
    do i = 2, n - 1
      u(i) = v(i)
    end do
    if (mod(step, nout) == 0) then
      write (*, '(a, i4, 3f14.8)') ' step', step, u(2), u(n/2), u(n-1)
    end if
  end do
end program every_n
