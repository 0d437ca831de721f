! A LICOM-like ocean model's history and restart output through PIO's Fortran interface, as a
! CESM component writes it: `use pio` only, so the same source builds against tapio's module
! (libtapio_pio_fortran) and against the real PIO (libpiof). README.md says how.
!
! Ranks form a 2-D process grid over (lon, lat); each holds, as LICOM does, the whole block of
! columns it owns, all levels, in Fortran arrays t(ni, nj, nz). Land (the levels below the
! ocean floor, kmt, and land columns) is a hole in the compdof (0): no rank writes it, and it
! reads back as _FillValue. The grid, the fields and their values come from licom_grid.f90,
! shared with the tapio-API version of this model (licom_like.f90).
!
!   mpiexec -n N licom_pio PREFIX cdf1|cdf2|cdf5 pnetcdf|netcdf box|subset
!
! writes PREFIX.hist.nc (NFRAMES history frames of temp, salt, u, v and ssh) and PREFIX.rest.nc
! (the last state, no time dimension). Then, as a restarted run would, it reads the restart back
! on every rank (and compares each ocean point with what it wrote), takes one more step and
! appends its frame to the history (PIO_openfile with PIO_write): NFRAMES + 1 frames in all.
! "licom_pio ok on N ranks" when all is well.
program licom_pio
  use mpi
  use pio
  use licom_grid
  implicit none
  integer, parameter :: nframes = 3
  ! The fields: licom_grid's four 3-D ones, then the sea-surface height.
  character(len=4), parameter :: field_names(5) = [names3, "ssh "]
  character(len=4), parameter :: field_units(5) = [units3, "m   "]
  character(len=*), parameter :: long_names(5) = [character(len=24) :: "potential temperature", &
    "salinity", "zonal velocity", "meridional velocity", "sea surface height"]
  type(iosystem_desc_t) :: ios
  type(io_desc_t) :: dec3, dec2, dec_kmt
  integer(pio_offset_kind), allocatable :: map3(:), map2(:), map_kmt(:)
  real(8), allocatable :: state(:, :, :, :), surface(:, :)
  integer :: rank, nproc, ierr, errors, total, grid(2), coords(2), grid_comm
  integer :: i0, ni, j0, nj, iotype, rearr, mode, niotasks
  character(len=256) :: prefix

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  errors = 0
  call command_line()
  ! The 2-D process grid and this rank's block of columns.
  grid = 0
  call MPI_Dims_create(nproc, 2, grid, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, grid, [.false., .false.], .false., grid_comm, ierr)
  call MPI_Cart_coords(grid_comm, rank, 2, coords, ierr)
  call split(nlon, grid(1), coords(1), i0, ni)
  call split(nlat, grid(2), coords(2), j0, nj)

  ! One I/O task in two ranks, as CESM's pio_stride = 2.
  niotasks = max(1, nproc / 2)
  call PIO_init(rank, MPI_COMM_WORLD, niotasks, 0, max(1, nproc / niotasks), rearr, ios)
  call PIO_seterrorhandling(ios, PIO_RETURN_ERROR)  ! statuses come back; check() reports them
  call block_maps()
  call PIO_initdecomp(ios, PIO_double, [nlon, nlat, nz], map3, dec3, rearr=rearr)
  call PIO_initdecomp(ios, PIO_double, [nlon, nlat], map2, dec2, rearr=rearr)
  call PIO_initdecomp(ios, PIO_int, [nlon, nlat], map_kmt, dec_kmt, rearr=rearr)

  allocate(state(ni, nj, nz, 4), surface(ni, nj))
  call write_history(trim(prefix) // ".hist.nc")
  call write_restart(trim(prefix) // ".rest.nc")
  ! The restarted run.
  call read_restart(trim(prefix) // ".rest.nc")
  call continue_history(trim(prefix) // ".hist.nc")

  call PIO_freedecomp(ios, dec3)
  call PIO_freedecomp(ios, dec2)
  call PIO_freedecomp(ios, dec_kmt)
  call PIO_finalize(ios, ierr)
  call check(ierr, "PIO_finalize")
  deallocate(map3, map2, map_kmt, state, surface)  ! a main program's arrays stay otherwise
  call MPI_Allreduce(errors, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print '(a, i0, a)', "licom_pio ok on ", nproc, " ranks"
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine command_line()
    character(len=16) :: fmt, io, re
    call get_command_argument(1, prefix)
    call get_command_argument(2, fmt)
    call get_command_argument(3, io)
    call get_command_argument(4, re)
    select case (fmt)
    case ("cdf1")
      mode = 0
    case ("cdf2")
      mode = PIO_64BIT_OFFSET
    case ("cdf5")
      mode = PIO_64BIT_DATA
    case default
      mode = -1
    end select
    iotype = merge(PIO_iotype_netcdf, PIO_iotype_pnetcdf, io == "netcdf")
    rearr = merge(PIO_rearr_box, PIO_rearr_subset, re == "box")
    if (len_trim(prefix) == 0 .or. mode < 0 .or. (io /= "netcdf" .and. io /= "pnetcdf") .or. &
        (re /= "box" .and. re /= "subset")) then
      if (rank == 0) write (0, '(a)') &
        "usage: licom_pio PREFIX cdf1|cdf2|cdf5 pnetcdf|netcdf box|subset"
      call MPI_Finalize(ierr)
      stop 2
    end if
  end subroutine

  ! The compdofs of this rank's block, in the order of its arrays (i fastest, then j, then k):
  ! 1-based offsets into the global Fortran array, 0 for land. kmt itself covers every column.
  subroutine block_maps()
    integer :: i, j, k, n
    integer(pio_offset_kind) :: column
    allocate(map3(ni * nj * nz), map2(ni * nj), map_kmt(ni * nj))
    n = 0
    do k = 1, nz
      do j = j0, j0 + nj - 1
        do i = i0, i0 + ni - 1
          n = n + 1
          column = i + int(nlon, pio_offset_kind) * (j - 1)
          map3(n) = merge(column + int(nlon * nlat, pio_offset_kind) * (k - 1), 0_pio_offset_kind, &
                          k <= kmt(i, j))
          if (k == 1) then
            map2(n) = merge(column, 0_pio_offset_kind, kmt(i, j) > 0)
            map_kmt(n) = column
          end if
        end do
      end do
    end do
  end subroutine

  ! The model's state at step s (0-based): every ocean point set, land left at the fill value.
  subroutine step_model(s)
    integer, intent(in) :: s
    integer :: v, i, j, k
    state = fill
    surface = fill
    do j = 1, nj
      do i = 1, ni
        do k = 1, kmt(i0 + i - 1, j0 + j - 1)
          do v = 1, 4
            state(i, j, k, v) = value3(v, i0 + i - 1, j0 + j - 1, k, s)
          end do
        end do
        if (kmt(i0 + i - 1, j0 + j - 1) > 0) surface(i, j) = ssh(i0 + i - 1, j0 + j - 1, s)
      end do
    end do
  end subroutine

  ! The fields of a file: temp, salt, u, v on dims3 and ssh on dims2 (the time dimension last
  ! in a history), each with long_name, units and _FillValue.
  subroutine define_fields(file, dims3, dims2, fields)
    type(file_desc_t), intent(inout) :: file
    integer, intent(in) :: dims3(:), dims2(:)
    type(var_desc_t), intent(out) :: fields(5)
    integer :: v
    do v = 1, 5
      if (v <= 4) then
        call check(PIO_def_var(file, trim(field_names(v)), PIO_double, dims3, fields(v)), &
                   "def_var " // field_names(v))
      else
        call check(PIO_def_var(file, trim(field_names(v)), PIO_double, dims2, fields(v)), &
                   "def_var " // field_names(v))
      end if
      call check(PIO_put_att(file, fields(v), "long_name", trim(long_names(v))), &
                 "put_att long_name")
      call check(PIO_put_att(file, fields(v), "units", trim(field_units(v))), "put_att units")
      call check(PIO_put_att(file, fields(v), "_FillValue", fill), "put_att _FillValue")
    end do
  end subroutine

  ! Create a file (clobbering) in the chosen format with lon, lat, depth and the global
  ! attributes; the caller defines the rest.
  subroutine create(file, path, kind, dims)
    type(file_desc_t), intent(out) :: file
    character(len=*), intent(in) :: path, kind
    integer, intent(out) :: dims(3)
    call check(PIO_createfile(ios, file, iotype, path, ior(mode, PIO_clobber)), &
               "createfile " // path)
    call check(PIO_def_dim(file, "lon", nlon, dims(1)), "def_dim lon")
    call check(PIO_def_dim(file, "lat", nlat, dims(2)), "def_dim lat")
    call check(PIO_def_dim(file, "depth", nz, dims(3)), "def_dim depth")
    call check(PIO_put_att(file, PIO_global, "title", "LICOM-like ocean " // kind), "put_att title")
    call check(PIO_put_att(file, PIO_global, "source", "licom_pio (use pio)"), "put_att source")
  end subroutine

  ! History: coordinates and the land mask once, then a frame per step, synced as CESM does at
  ! each history write.
  subroutine write_history(path)
    character(len=*), intent(in) :: path
    type(file_desc_t) :: file
    type(var_desc_t) :: fields(5), lon, lat, depth, time, levels
    integer :: dims(4), i, s
    integer, allocatable :: kmt_block(:, :)
    call create(file, path, "history", dims(1:3))
    call check(PIO_def_dim(file, "time", PIO_unlimited, dims(4)), "def_dim time")
    call check(PIO_def_var(file, "lon", PIO_double, dims(1:1), lon), "def_var lon")
    call check(PIO_put_att(file, lon, "units", "degrees_east"), "put_att units")
    call check(PIO_def_var(file, "lat", PIO_double, dims(2:2), lat), "def_var lat")
    call check(PIO_put_att(file, lat, "units", "degrees_north"), "put_att units")
    call check(PIO_def_var(file, "depth", PIO_double, dims(3:3), depth), "def_var depth")
    call check(PIO_put_att(file, depth, "units", "m"), "put_att units")
    call check(PIO_put_att(file, depth, "positive", "down"), "put_att positive")
    call check(PIO_def_var(file, "time", PIO_double, dims(4:4), time), "def_var time")
    call check(PIO_put_att(file, time, "units", "days since 0001-01-01 00:00:00"), "put_att units")
    call check(PIO_def_var(file, "kmt", PIO_int, dims(1:2), levels), "def_var kmt")
    call check(PIO_put_att(file, levels, "long_name", "ocean levels in the column"), "put_att")
    call define_fields(file, dims, [dims(1), dims(2), dims(4)], fields)
    call check(PIO_enddef(file), "enddef " // path)

    ! Box writes: every task passes the same values, as PIO expects.
    call check(PIO_put_var(file, lon, [(5d0 + 10d0 * (i - 1), i = 1, nlon)]), "put_var lon")
    call check(PIO_put_var(file, lat, [(-57.5d0 + 5d0 * (i - 1), i = 1, nlat)]), "put_var lat")
    call check(PIO_put_var(file, depth, [(10d0 * i * i, i = 1, nz)]), "put_var depth")
    kmt_block = reshape([(kmt(i0 + mod(i, ni), j0 + i / ni), i = 0, ni * nj - 1)], [ni, nj])
    call PIO_write_darray(file, levels, dec_kmt, kmt_block, ierr)
    call check(ierr, "write_darray kmt")

    do s = 0, nframes - 1
      call step_model(s)
      call write_frame(file, fields, time, s)
    end do
    call PIO_closefile(file)
  end subroutine

  ! History frame s + 1: the model's state at step s, and its time.
  subroutine write_frame(file, fields, time, s)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: fields(5), time
    integer, intent(in) :: s
    call check(PIO_put_var(file, time, [s + 1], [1], [30d0 * (s + 1)]), "put_var time")
    call write_fields(file, fields, s + 1)
    call PIO_syncfile(file)
  end subroutine

  ! The model's state into the five fields, at a frame (1-based) when they have a time dimension.
  subroutine write_fields(file, fields, frame)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: fields(5)
    integer, intent(in), optional :: frame
    integer :: v
    if (present(frame)) then
      do v = 1, 5
        call PIO_setframe(file, fields(v), int(frame, pio_offset_kind))
      end do
    end if
    do v = 1, 4
      call PIO_write_darray(file, fields(v), dec3, state(:, :, :, v), ierr, fillval=fill)
      call check(ierr, "write_darray " // field_names(v))
    end do
    call PIO_write_darray(file, fields(5), dec2, surface, ierr, fillval=fill)
    call check(ierr, "write_darray ssh")
  end subroutine

  ! Restart: the last step's state, no time dimension.
  subroutine write_restart(path)
    character(len=*), intent(in) :: path
    type(file_desc_t) :: file
    type(var_desc_t) :: fields(5)
    integer :: dims(3)
    call create(file, path, "restart", dims)
    call check(PIO_put_att(file, PIO_global, "step", nframes - 1), "put_att step")
    call define_fields(file, dims, dims(1:2), fields)
    call check(PIO_enddef(file), "enddef " // path)
    call write_fields(file, fields)
    call PIO_closefile(file)
  end subroutine

  ! A model restarting: every field read into its block and compared at each ocean point
  ! (what a read gives at a hole is not defined, so land is left out).
  subroutine read_restart(path)
    character(len=*), intent(in) :: path
    type(file_desc_t) :: file
    type(var_desc_t) :: field
    real(8), allocatable :: got(:, :, :), got2(:, :)
    logical, allocatable :: ocean(:, :, :)
    integer :: v, step, i, j, k
    allocate(got(ni, nj, nz), got2(ni, nj), ocean(ni, nj, nz))
    ocean = reshape([(((k <= kmt(i0 + i - 1, j0 + j - 1), i = 1, ni), j = 1, nj), k = 1, nz)], &
                    [ni, nj, nz])
    call check(PIO_openfile(ios, file, iotype, path, PIO_nowrite), "openfile " // path)
    call check(PIO_get_att(file, PIO_global, "step", step), "get_att step")
    if (step /= nframes - 1) call wrong("restart step")
    do v = 1, 4
      call check(PIO_inq_varid(file, trim(field_names(v)), field), "inq_varid " // field_names(v))
      got = -1d0
      call PIO_read_darray(file, field, dec3, got, ierr)
      call check(ierr, "read_darray " // field_names(v))
      if (any(ocean .and. got /= state(:, :, :, v))) call wrong("restart " // field_names(v))
    end do
    call check(PIO_inq_varid(file, "ssh", field), "inq_varid ssh")
    got2 = -1d0
    call PIO_read_darray(file, field, dec2, got2, ierr)
    call check(ierr, "read_darray ssh")
    if (any(ocean(:, :, 1) .and. got2 /= surface)) call wrong("restart ssh")
    call PIO_closefile(file)
  end subroutine

  ! The restarted run's first step, appended to the history after the frames already there.
  subroutine continue_history(path)
    character(len=*), intent(in) :: path
    type(file_desc_t) :: file
    type(var_desc_t) :: fields(5), time
    integer :: v, frames, time_dim
    call step_model(nframes)
    call check(PIO_openfile(ios, file, iotype, path, PIO_write), "openfile " // path)
    call check(PIO_inq_dimid(file, "time", time_dim), "inq_dimid time")
    call check(PIO_inq_dimlen(file, time_dim, frames), "inq_dimlen time")
    if (frames /= nframes) call wrong("frames in the history")
    call check(PIO_inq_varid(file, "time", time), "inq_varid time")
    do v = 1, 5
      call check(PIO_inq_varid(file, trim(field_names(v)), fields(v)), &
                 "inq_varid " // field_names(v))
    end do
    call write_frame(file, fields, time, nframes)
    call PIO_closefile(file)
  end subroutine

  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    character(len=256) :: text
    integer :: ignored
    if (status == PIO_noerr) return
    ignored = PIO_strerror(status, text)
    call wrong(what // ": " // trim(text))
  end subroutine

  subroutine wrong(what)
    character(len=*), intent(in) :: what
    write (0, '(a, i0, 2a)') "licom_pio: WRONG on rank ", rank, ": ", what
    errors = errors + 1
  end subroutine
end program licom_pio
