! Every reduction operator the DVMH REDUCTION clause knows, written the
! way sequential programs write them: sum (three spellings), product,
! max and min (intrinsic and IF forms), the logical .and., .or., .eqv.
! and .neqv. accumulations, and MAXLOC/MINLOC searches that remember
! where the extreme value is (1-D and over a 2-D array).
program red
  implicit none
  integer, parameter :: n = 200000, m = 400
  double precision :: x(n), b(m,m)
  integer :: k(n)
  double precision :: s1, s2, s3, p, xmax, xmin, ymax, ymin
  double precision :: vmax, vmin, bmax, bmin
  integer :: i, j, isum, kmax, kmin, imax, imin, ibmax, jbmax, ibmin, jbmin
  logical :: lall, lany, leqv, lneqv

  ! distinct values: i*7919 mod 200003 and ((i-1)*m+j)*7907 mod 160009
  ! are one-to-one (both moduli are prime), so MAXLOC/MINLOC have no ties
  do i = 1, n
    k(i) = mod(i * 7919, 200003)
    x(i) = dble(k(i)) * 1.0d-3 - 100.0d0
  end do
  do j = 1, m
    do i = 1, m
      b(i,j) = dble(mod(((i - 1) * m + j) * 7907, 160009)) * 1.0d-2
    end do
  end do

  s1 = 0.0d0
  s2 = 0.0d0
  s3 = 0.0d0
  isum = 0
  do i = 1, n
    s1 = s1 + x(i)
    s2 = x(i) * x(i) + s2
    s3 = s3 - x(i) * 0.5d0
    isum = isum + mod(k(i), 1000)
  end do

  p = 1.0d0
  do i = 1, 2000
    p = p * (1.0d0 + x(i) * 1.0d-5)
  end do

  xmax = -huge(1.0d0)
  xmin = huge(1.0d0)
  kmax = -huge(1)
  kmin = huge(1)
  do i = 1, n
    xmax = max(xmax, x(i))
    xmin = min(x(i), xmin)
    kmax = max(kmax, k(i))
    kmin = min(kmin, k(i))
  end do

  ymax = -huge(1.0d0)
  ymin = huge(1.0d0)
  do i = 1, n
    if (x(i) * x(i) > ymax) ymax = x(i) * x(i)
    if (abs(x(i) - 3.3333d0) < ymin) ymin = abs(x(i) - 3.3333d0)
  end do

  lall = .true.
  lany = .false.
  leqv = .true.
  lneqv = .false.
  do i = 1, n
    lall = lall .and. (x(i) > -100.0d0)
    lany = lany .or. (k(i) == 123456)
    leqv = leqv .eqv. (mod(k(i), 3) == 0)
    lneqv = lneqv .neqv. (mod(k(i), 2) == 1)
  end do

  ! MAXLOC / MINLOC over a vector
  vmax = x(1)
  imax = 1
  vmin = x(1)
  imin = 1
  do i = 2, n
    if (x(i) > vmax) then
      vmax = x(i)
      imax = i
    end if
    if (x(i) < vmin) then
      vmin = x(i)
      imin = i
    end if
  end do

  ! MAXLOC / MINLOC over a 2-D array
  bmax = b(1,1)
  ibmax = 1
  jbmax = 1
  bmin = b(1,1)
  ibmin = 1
  jbmin = 1
  do j = 1, m
    do i = 1, m
      if (b(i,j) > bmax) then
        bmax = b(i,j)
        ibmax = i
        jbmax = j
      end if
      if (b(i,j) < bmin) then
        bmin = b(i,j)
        ibmin = i
        jbmin = j
      end if
    end do
  end do

  print '(a, f16.4, a, f18.2, a, f14.4)', ' sum x =', s1, '  sum x^2 =', s2, '  -sum x/2 =', s3
  print '(a, i12, a, f14.10)', ' sum mod(k,1000) =', isum, '  product =', p
  print '(a, 2f12.4, a, 2i8)', ' max/min x =', xmax, xmin, '  max/min k =', kmax, kmin
  print '(a, f14.6, a, f12.6)', ' max x^2 =', ymax, '  min |x-3.3333| =', ymin
  print '(a, 4l3)', ' and/or/eqv/neqv =', lall, lany, leqv, lneqv
  print '(a, f12.4, i8, a, f12.4, i8)', ' maxloc x =', vmax, imax, '  minloc x =', vmin, imin
  print '(a, f12.4, 2i5, a, f12.4, 2i5)', ' maxloc b =', bmax, ibmax, jbmax, '  minloc b =', bmin, ibmin, jbmin
end program red
