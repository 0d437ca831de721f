! The LICOM-like model's arrays written by netCDF-Fortran (serial, one rank): the independent
! peer of examples/licom_like.f90. Both files must show the same variables, shapes and
! values (tests/py/test_fortran.py), which checks that `use tapio` maps Fortran arrays exactly
! as netCDF-Fortran does.
!   nf_licom PATH STEPS
program nf_licom
  use netcdf
  use licom_grid
  implicit none
  integer :: ncid, t_dim, lon_dim, lat_dim, z_dim, ids(4), ssh_id, lon_id, lat_id, z_id
  integer :: steps, v, s, i, j, k, ierr
  character(len=256) :: path, arg
  real(8) :: f3(nlon, nlat, nz), f2(nlon, nlat)

  call get_command_argument(1, path)
  call get_command_argument(2, arg)
  read (arg, *, iostat=ierr) steps
  if (ierr /= 0) stop "usage: nf_licom PATH STEPS"
  call check(nf90_create(path, ior(NF90_CLOBBER, NF90_64BIT_DATA), ncid))
  call check(nf90_def_dim(ncid, "time", NF90_UNLIMITED, t_dim))
  call check(nf90_def_dim(ncid, "depth", nz, z_dim))
  call check(nf90_def_dim(ncid, "lat", nlat, lat_dim))
  call check(nf90_def_dim(ncid, "lon", nlon, lon_dim))
  call check(nf90_def_var(ncid, "lon", NF90_DOUBLE, [lon_dim], lon_id))
  call check(nf90_def_var(ncid, "lat", NF90_DOUBLE, [lat_dim], lat_id))
  call check(nf90_def_var(ncid, "depth", NF90_DOUBLE, [z_dim], z_id))
  do v = 1, 4
    call check(nf90_def_var(ncid, trim(names3(v)), NF90_DOUBLE, &
                            [lon_dim, lat_dim, z_dim, t_dim], ids(v)))
    call check(nf90_put_att(ncid, ids(v), "_FillValue", fill))
  end do
  call check(nf90_def_var(ncid, "ssh", NF90_DOUBLE, [lon_dim, lat_dim, t_dim], ssh_id))
  call check(nf90_put_att(ncid, ssh_id, "_FillValue", fill))
  call check(nf90_enddef(ncid))
  call check(nf90_put_var(ncid, lon_id, [(5d0 + 10d0 * (i - 1), i = 1, nlon)]))
  call check(nf90_put_var(ncid, lat_id, [(-57.5d0 + 5d0 * (i - 1), i = 1, nlat)]))
  call check(nf90_put_var(ncid, z_id, [(10d0 * i * i, i = 1, nz)]))
  do s = 0, steps - 1
    do v = 1, 4
      do k = 1, nz
        do j = 1, nlat
          do i = 1, nlon
            f3(i, j, k) = merge(value3(v, i, j, k, s), fill, k <= kmt(i, j))
          end do
        end do
      end do
      call check(nf90_put_var(ncid, ids(v), f3, start=[1, 1, 1, s + 1]))
    end do
    do j = 1, nlat
      do i = 1, nlon
        f2(i, j) = merge(ssh(i, j, s), fill, kmt(i, j) > 0)
      end do
    end do
    call check(nf90_put_var(ncid, ssh_id, f2, start=[1, 1, s + 1]))
  end do
  call check(nf90_close(ncid))

contains

  subroutine check(status)
    integer, intent(in) :: status
    if (status /= NF90_NOERR) then
      write (0, '(2a)') "nf_licom: ", trim(nf90_strerror(status))
      error stop 1
    end if
  end subroutine
end program
