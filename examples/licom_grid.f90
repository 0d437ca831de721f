! The LICOM-like model's grid, fields and block split, shared by the tapio model
! (licom_like.f90), its `use pio` twin (pio/licom_pio.f90) and its netCDF-Fortran peer
! (tests/fortran/nf_licom.f90), so all write the very same arrays.
! Fortran order, as LICOM declares them: t(nlon, nlat, nz); the file shows (time, depth, lat, lon).
module licom_grid
  implicit none
  integer, parameter :: nlon = 36, nlat = 24, nz = 10
  real(8), parameter :: fill = -1.0d34  ! _FillValue: land points are never written
  character(len=4), parameter :: names3(4) = ["temp", "salt", "u   ", "v   "]
  character(len=4), parameter :: units3(4) = ["degC", "psu ", "m/s ", "m/s "]

contains

  ! Ocean levels of column (i, j), 0 on land: a continent, an island and a sloping shelf.
  integer function kmt(i, j)
    integer, intent(in) :: i, j
    if ((i >= 8 .and. i <= 14 .and. j >= 5 .and. j <= 18) .or. &
        (i >= 25 .and. i <= 27 .and. j >= 10 .and. j <= 12) .or. j == nlat) then
      kmt = 0
    else
      kmt = 1 + mod(3 * i + 5 * j, nz)
    end if
  end function

  ! Variable v (1..4: temp, salt, u, v) at ocean point (i, j, k) of step s (0-based).
  real(8) function value3(v, i, j, k, s)
    integer, intent(in) :: v, i, j, k, s
    value3 = 1000d0 * v + 100d0 * s + i + 0.01d0 * j + 0.0001d0 * k
  end function

  real(8) function ssh(i, j, s)
    integer, intent(in) :: i, j, s
    ssh = 0.5d0 * s + 0.001d0 * i - 0.002d0 * j
  end function

  ! Part p (0-based) of parts of n: first index (1-based) and length.
  subroutine split(n, parts, p, first, length)
    integer, intent(in) :: n, parts, p
    integer, intent(out) :: first, length
    first = n * p / parts + 1
    length = n * (p + 1) / parts - (first - 1)
  end subroutine
end module licom_grid
