! Calls the accelerator C ABI (sapfor_rt::gpu_abi) from Fortran the way converted programs
! will: x(i) = i on the emulated accelerator, then s = SUM(x(i)*2) as a REDUCTION folded on
! the device, then GET_ACTUAL(x(1:5)). Driven by runtime/tests/gpu_fortran.rs.
module sapfor_gpu
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function sapfor_gpu_init(kind) bind(c)
      import :: c_int
      integer(c_int), value :: kind
    end function
    integer(c_int64_t) function sapfor_gpu_load(path) bind(c)
      import :: c_int64_t, c_char
      character(kind=c_char) :: path(*)
    end function
    integer(c_int64_t) function sapfor_gpu_register(ptr, rank, lo, hi, elem) bind(c)
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: ptr
      integer(c_int64_t), value :: rank, elem
      integer(c_int64_t) :: lo(*), hi(*)
    end function
    integer(c_int64_t) function sapfor_gpu_use(var, access, rank, lo, hi) bind(c)
      import :: c_int64_t, c_int
      integer(c_int64_t), value :: var, rank
      integer(c_int), value :: access
      integer(c_int64_t) :: lo(*), hi(*)
    end function
    integer(c_int64_t) function sapfor_gpu_region_enter() bind(c)
      import :: c_int64_t
    end function
    integer(c_int64_t) function sapfor_gpu_region_exit() bind(c)
      import :: c_int64_t
    end function
    integer(c_int64_t) function sapfor_gpu_arg_array(var) bind(c)
      import :: c_int64_t
      integer(c_int64_t), value :: var
    end function
    subroutine sapfor_gpu_arg_loop(lo, hi, st) bind(c)
      import :: c_int64_t
      integer(c_int64_t), value :: lo, hi, st
    end subroutine
    integer(c_int64_t) function sapfor_gpu_arg_red(op, ty, host, nloc, locs) bind(c)
      import :: c_int64_t, c_int, c_ptr
      integer(c_int), value :: op, ty, nloc
      type(c_ptr), value :: host
      type(c_ptr) :: locs(*)
    end function
    integer(c_int64_t) function sapfor_gpu_launch(prog, name, bx, by, bz, single) bind(c)
      import :: c_int64_t, c_int, c_char
      integer(c_int64_t), value :: prog
      character(kind=c_char) :: name(*)
      integer(c_int), value :: bx, by, bz, single
    end function
    integer(c_int64_t) function sapfor_gpu_get_actual(var, rank, lo, hi) bind(c)
      import :: c_int64_t
      integer(c_int64_t), value :: var, rank
      integer(c_int64_t) :: lo(*), hi(*)
    end function
    subroutine sapfor_gpu_traffic(h2d, d2h, req, nocopy) bind(c)
      import :: c_int64_t
      integer(c_int64_t) :: h2d, d2h, req, nocopy
    end subroutine
    subroutine sapfor_gpu_finalize() bind(c)
    end subroutine
  end interface
end module sapfor_gpu

program demo
  use sapfor_gpu
  implicit none
  integer, parameter :: n = 1000
  double precision, target :: x(n), s
  type(c_ptr) :: nolocs(1)
  integer(c_int64_t) :: prog, vx, rc, h2d, d2h, req, nocopy
  integer(c_int) :: kind
  x = -1.0d0
  kind = sapfor_gpu_init(1)
  prog = sapfor_gpu_load('kernels.cu' // c_null_char)
  vx = sapfor_gpu_register(c_loc(x), 1_c_int64_t, [1_c_int64_t], [int(n, c_int64_t)], 8_c_int64_t)
  ! REGION OUT(X): x(i) = i
  rc = sapfor_gpu_use(vx, 2, 1_c_int64_t, [1_c_int64_t], [int(n, c_int64_t)])
  rc = sapfor_gpu_region_enter()
  rc = sapfor_gpu_arg_array(vx)
  call sapfor_gpu_arg_loop(1_c_int64_t, int(n, c_int64_t), 1_c_int64_t)
  rc = sapfor_gpu_launch(prog, 'fill' // c_null_char, 256, 1, 1, 0)
  rc = sapfor_gpu_region_exit()
  ! REGION IN(X): s = s + 2*x(i), REDUCTION(SUM(S))
  s = 0.5d0
  rc = sapfor_gpu_use(vx, 1, 1_c_int64_t, [1_c_int64_t], [int(n, c_int64_t)])
  rc = sapfor_gpu_region_enter()
  rc = sapfor_gpu_arg_array(vx)
  call sapfor_gpu_arg_loop(1_c_int64_t, int(n, c_int64_t), 1_c_int64_t)
  rc = sapfor_gpu_arg_red(1, 4, c_loc(s), 0, nolocs)
  rc = sapfor_gpu_launch(prog, 'twice' // c_null_char, 256, 1, 1, 0)
  rc = sapfor_gpu_region_exit()
  print '(a, i2, a, f12.1)', ' kind', kind, '  s =', s
  print '(a, 2f6.1)', ' host x(1), x(6) before GET_ACTUAL:', x(1), x(6)
  rc = sapfor_gpu_get_actual(vx, 1_c_int64_t, [1_c_int64_t], [5_c_int64_t])
  print '(a, 2f6.1)', ' host x(1), x(6) after GET_ACTUAL(X(1:5)):', x(1), x(6)
  call sapfor_gpu_traffic(h2d, d2h, req, nocopy)
  print '(a, 4i6)', ' traffic h2d d2h requests no-copy:', h2d, d2h, req, nocopy
  call sapfor_gpu_finalize()
end program demo
