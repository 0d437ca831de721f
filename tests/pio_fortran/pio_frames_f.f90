! A history file written through `use pio` and read back: a 3-D double field and a 2-D real
! field over frames, and a 2-D int mask, each distributed by a compdof with holes (land points
! no rank maps, and 0 entries a rank passes but does not own), with coordinates, a text
! variable and attributes written by put_var/put_att. Every rank checks what it reads back;
! tests/py/test_pio_fortran.py checks the file with netCDF4-python.
! Usage: pio_frames_f FILE cdf1|cdf2|cdf5 [pnetcdf|netcdf] [box|subset]
program pio_frames_f
  use mpi
  use pio
  implicit none
  integer, parameter :: nx = 7, ny = 5, nz = 3, nframes = 3
  double precision, parameter :: temp_fill = -1.0d30
  type(iosystem_desc_t) :: ios
  type(file_desc_t) :: file
  type(io_desc_t) :: dec3d, dec2d, dec2d_int
  type(var_desc_t) :: temp, sst, mask, depth, title
  integer(pio_offset_kind), allocatable :: map3d(:), map2d(:)
  double precision, allocatable :: t(:), t_in(:)
  real, allocatable :: s(:), s_in(:)
  integer, allocatable :: m(:), m_in(:)
  character(len=256) :: path, arg
  character(len=12) :: name = 'ocean model'
  integer :: rank, nranks, ierr, mode, iotype, rearr, frame, errors, total, dims(4), n
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nranks, ierr)
  call get_command_argument(1, path)
  call get_command_argument(2, arg)
  select case (trim(arg))
  case ('cdf2')
    mode = pio_64bit_offset
  case ('cdf5')
    mode = pio_64bit_data
  case default
    mode = 0
  end select
  call get_command_argument(3, arg)
  iotype = merge(pio_iotype_netcdf, pio_iotype_pnetcdf, trim(arg) == 'netcdf')
  call get_command_argument(4, arg)
  rearr = merge(pio_rearr_box, pio_rearr_subset, trim(arg) == 'box')
  errors = 0

  ! Two I/O tasks when there are ranks for them, stride 1.
  call pio_init(rank, mpi_comm_world, min(2, nranks), 0, 1, rearr, ios)
  call decompose(map3d, nz)
  call decompose(map2d, 1)

  call expect(pio_createfile(ios, file, iotype, path, ior(mode, pio_clobber)), 'createfile')
  call expect(pio_def_dim(file, 'x', nx, dims(1)), 'def_dim x')
  call expect(pio_def_dim(file, 'y', ny, dims(2)), 'def_dim y')
  call expect(pio_def_dim(file, 'z', int(nz, pio_offset_kind), dims(3)), 'def_dim z')
  call expect(pio_def_dim(file, 'time', pio_unlimited, dims(4)), 'def_dim time')
  call expect(pio_def_var(file, 'temp', pio_double, dims, temp), 'def_var temp')
  call expect(pio_put_att(file, temp, '_FillValue', temp_fill), 'put_att _FillValue')
  call expect(pio_put_att(file, temp, 'units', 'degC   '), 'put_att units')
  call expect(pio_def_var(file, 'sst', pio_real, [dims(1), dims(2), dims(4)], sst), 'def_var sst')
  call expect(pio_def_var(file, 'mask', pio_int, dims(1:2), mask), 'def_var mask')
  call expect(pio_def_var(file, 'depth', pio_double, dims(3:3), depth), 'def_var depth')
  call expect(pio_def_dim(file, 'strlen', 12, n), 'def_dim strlen')
  call expect(pio_def_var(file, 'title', pio_char, [n], title), 'def_var title')
  call expect(pio_put_att(file, pio_global, 'levels', [10, 20, 30]), 'put_att levels')
  call expect(pio_put_att(file, pio_global, 'source', 'pio_frames_f'), 'put_att source')
  call expect(pio_enddef(file), 'enddef')
  ! depth in two boxes; title whole.
  call expect(pio_put_var(file, depth, [1], [2], [5d0, 15d0]), 'put_var depth(1:2)')
  call expect(pio_put_var(file, depth, [3], [1], [30d0]), 'put_var depth(3)')
  call expect(pio_put_var(file, title, name), 'put_var title')

  call pio_initdecomp(ios, pio_double, [nx, ny, nz], map3d, dec3d, rearr=rearr)
  call pio_initdecomp(ios, pio_real, [nx, ny], map2d, dec2d, rearr=rearr)
  call pio_initdecomp(ios, pio_int, [nx, ny], map2d, dec2d_int, rearr=rearr)
  if (pio_get_local_array_size(dec3d) /= size(map3d)) call wrong('local array size')
  allocate(t(size(map3d)), s(size(map2d)), m(size(map2d)))
  do frame = 1, nframes
    t = merge(value3d(map3d, frame), -999d0, map3d > 0)
    s = real(merge(value3d(map2d, frame), -999d0, map2d > 0))
    call pio_setframe(file, temp, int(frame, pio_offset_kind))
    call pio_write_darray(file, temp, dec3d, t, ierr, fillval=temp_fill)
    call expect(ierr, 'write_darray temp')
    call pio_setframe(file, sst, int(frame, pio_offset_kind))
    call pio_write_darray(file, sst, dec2d, reshape(s, [size(s), 1]), ierr)
    call expect(ierr, 'write_darray sst')
  end do
  m = int(map2d)
  call pio_write_darray(file, mask, dec2d_int, m, ierr)
  call expect(ierr, 'write_darray mask')
  call pio_closefile(file)

  call read_back()
  call pio_freedecomp(ios, dec3d)
  call pio_freedecomp(ios, dec2d)
  call pio_freedecomp(ios, dec2d_int)
  call pio_finalize(ios, ierr)
  call expect(ierr, 'finalize')
  call mpi_allreduce(errors, total, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
  if (rank == 0 .and. total == 0) print '(a,i0,a)', 'pio_frames_f ok on ', nranks, ' ranks'
  deallocate(t, s, m, map3d, map2d)
  call mpi_finalize(ierr)
  if (total /= 0) error stop 1

contains
  ! This rank's compdof over nlev levels: columns (i, j) dealt round-robin, land left to no rank,
  ! and a 0 (a hole the rank passes but nobody writes) where a rank's column is land.
  subroutine decompose(map, nlev)
    integer(pio_offset_kind), allocatable, intent(out) :: map(:)
    integer, intent(in) :: nlev
    integer :: i, j, k
    allocate(map(0))
    do k = 1, nlev
      do j = 1, ny
        do i = 1, nx
          if (mod(i + j, nranks) /= rank) cycle
          if (land(i, j)) then
            map = [map, 0_pio_offset_kind]
          else
            map = [map, int(i + nx * (j - 1) + nx * ny * (k - 1), pio_offset_kind)]
          end if
        end do
      end do
    end do
  end subroutine

  logical pure function land(i, j)
    integer, intent(in) :: i, j
    land = mod(3 * i + j, 7) == 0
  end function

  ! The value at global offset g (1-based) of a frame: exact in real and double.
  elemental double precision function value3d(g, frame)
    integer(pio_offset_kind), intent(in) :: g
    integer, intent(in) :: frame
    value3d = frame * 1000 + g
  end function

  subroutine read_back()
    character(len=16) :: text
    integer :: varid, ndims, dimids(4), levels(3), xtype, nlen, unlim
    double precision :: dep(3)
    type(var_desc_t) :: v
    call expect(pio_openfile(ios, file, iotype, path, pio_nowrite), 'openfile')
    call expect(pio_inq_varid(file, 'temp', v), 'inq_varid temp')
    call expect(pio_inq_varndims(file, v, ndims), 'inq_varndims')
    call expect(pio_inq_vardimid(file, v, dimids), 'inq_vardimid')
    if (ndims /= 4 .or. any(dimids /= dims)) call wrong('temp dimids')
    call expect(pio_inq_vartype(file, v, xtype), 'inq_vartype')
    if (xtype /= pio_double) call wrong('temp type')
    call expect(pio_inq_dimlen(file, dims(4), nlen), 'inq_dimlen time')
    if (nlen /= nframes) call wrong('time length')
    call expect(pio_inq_unlimdim(file, unlim), 'inq_unlimdim')
    if (unlim /= dims(4)) call wrong('unlimited dimension')
    call expect(pio_inq_dimname(file, dims(3), text), 'inq_dimname')
    if (text /= 'z') call wrong('dimension name')
    call expect(pio_get_att(file, v, 'units', text), 'get_att units')
    if (text /= 'degC') call wrong('units: "' // trim(text) // '"')
    call expect(pio_get_att(file, pio_global, 'levels', levels), 'get_att levels')
    if (any(levels /= [10, 20, 30])) call wrong('levels')
    call expect(pio_inq_varid(file, 'depth', varid), 'inq_varid depth')
    call expect(pio_get_var(file, varid, dep), 'get_var depth')
    if (any(dep /= [5d0, 15d0, 30d0])) call wrong('depth')
    call expect(pio_get_var(file, title, text), 'get_var title')
    if (text /= 'ocean model') call wrong('title: "' // trim(text) // '"')
    ! A missing variable is an error every rank sees, and leaves the varid as it was.
    call pio_seterrorhandling(ios, pio_return_error)
    varid = 42
    if (pio_inq_varid(file, 'no_such_var', varid) == pio_noerr .or. varid /= 42) &
      call wrong('inq_varid of a missing variable')
    call pio_seterrorhandling(ios, pio_internal_error)

    allocate(t_in(size(map3d)), s_in(size(map2d)), m_in(size(map2d)))
    do frame = nframes, 1, -1
      call pio_setframe(file, v, int(frame, pio_offset_kind))
      call pio_read_darray(file, v, dec3d, t_in, ierr)
      call expect(ierr, 'read_darray temp')
      if (any(t_in /= merge(value3d(map3d, frame), 0d0, map3d > 0))) call wrong('temp values')
      call pio_setframe(file, sst, int(frame, pio_offset_kind))
      call pio_read_darray(file, sst, dec2d, s_in, ierr)
      call expect(ierr, 'read_darray sst')
      if (any(s_in /= real(merge(value3d(map2d, frame), 0d0, map2d > 0)))) call wrong('sst values')
    end do
    call pio_read_darray(file, mask, dec2d_int, m_in, ierr)
    call expect(ierr, 'read_darray mask')
    if (any(m_in /= int(map2d))) call wrong('mask values')
    call pio_closefile(file)
    deallocate(t_in, s_in, m_in)  ! the program's own: LeakSanitizer checks what it never frees
  end subroutine

  subroutine expect(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    character(len=80) :: text
    if (status == pio_noerr) return
    ierr = pio_strerror(status, text)
    call wrong(what // ': ' // trim(text))
  end subroutine

  include 'pio_checks.inc'
end program pio_frames_f
