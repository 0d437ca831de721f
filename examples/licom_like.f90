! A LICOM-like ocean model's history output through the Fortran module `tapio`.
!
! Ranks form a 2-D process grid over (lon, lat). Each holds, like LICOM, only its ocean points:
! temp, salt, u and v on lon x lat x depth and the 2-D sea-surface height ssh, packed in 1-D
! arrays, and a PIO-style map (compdof: 1-based indices into the global Fortran array) of where
! they go. Land is never written: it reads back as _FillValue. Coordinates lon, lat and depth
! are fixed variables written by rank 0. The engine is the one the config file names
! (TAPIO_CONFIG); without one, the path decides (.nc: collective, else a subfile dataset).
!
!   mpiexec -n N licom_like write PATH STEPS     every step written
!   mpiexec -n M licom_like read PATH STEPS      every ocean value and the land checked
program licom_like
  use mpi
  use tapio
  use licom_grid
  implicit none
  integer :: rank, nproc, ierr, bad, total, steps, dims(2), coords(2), grid_comm
  integer :: i0, ni, j0, nj
  character(len=256) :: mode, path, arg
  type(tapio_context) :: ctx
  integer(8), allocatable :: map3(:), map2(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call get_command_argument(1, mode)
  call get_command_argument(2, path)
  call get_command_argument(3, arg)
  read (arg, *, iostat=ierr) steps
  if ((mode /= "write" .and. mode /= "read") .or. ierr /= 0) then
    if (rank == 0) write (0, '(a)') "usage: licom_like write|read PATH STEPS"
    call MPI_Finalize(ierr)
    stop 2
  end if
  ! The 2-D process grid and this rank's block of columns.
  dims = 0
  call MPI_Dims_create(nproc, 2, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.false., .false.], .false., grid_comm, ierr)
  call MPI_Cart_coords(grid_comm, rank, 2, coords, ierr)
  call split(nlon, dims(1), coords(1), i0, ni)
  call split(nlat, dims(2), coords(2), j0, nj)
  call ocean_maps()

  call check(tapio_init(MPI_COMM_WORLD, ctx=ctx))  ! the config: $TAPIO_CONFIG
  bad = 0
  if (mode == "write") then
    call write_history()
  else
    call read_history()
  end if
  call check(tapio_finalize(ctx))
  deallocate(map3, map2)  ! a main program's arrays are not freed for it (LeakSanitizer)
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, a, a, i0, a, i0, a, i0, a)', "licom_like: ", trim(mode), " ok on ", &
    dims(1), " x ", dims(2), " ranks, ", steps, " steps"
  if (rank == 0 .and. total /= 0) print '(a, i0, a)', "licom_like: ", total, " WRONG VALUES"
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine check(status)
    integer, intent(in) :: status
    if (status /= TAPIO_OK) then
      write (0, '(2a)') "licom_like: ", tapio_last_error()
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine

  ! The compdof of this rank's ocean points, in LICOM's packing order (k, then j, then i
  ! fastest), for the 3-D fields and for the surface.
  subroutine ocean_maps()
    integer :: i, j, k, n3, n2
    n3 = 0
    n2 = 0
    do j = j0, j0 + nj - 1
      do i = i0, i0 + ni - 1
        n3 = n3 + kmt(i, j)
        if (kmt(i, j) > 0) n2 = n2 + 1
      end do
    end do
    allocate(map3(n3), map2(n2))
    n3 = 0
    do k = 1, nz
      do j = j0, j0 + nj - 1
        do i = i0, i0 + ni - 1
          if (k > kmt(i, j)) cycle
          n3 = n3 + 1
          map3(n3) = i + int(nlon, 8) * ((j - 1) + int(nlat, 8) * (k - 1))
        end do
      end do
    end do
    n2 = 0
    do j = j0, j0 + nj - 1
      do i = i0, i0 + ni - 1
        if (kmt(i, j) == 0) cycle
        n2 = n2 + 1
        map2(n2) = i + int(nlon, 8) * (j - 1)
      end do
    end do
  end subroutine

  ! Packed ocean values of variable v at step s, following map3.
  subroutine pack3(v, s, out)
    integer, intent(in) :: v, s
    real(8), intent(out) :: out(:)
    integer :: n, g, i, j, k
    do n = 1, size(map3)
      g = int(map3(n)) - 1
      i = mod(g, nlon) + 1
      j = mod(g / nlon, nlat) + 1
      k = g / (nlon * nlat) + 1
      out(n) = value3(v, i, j, k, s)
    end do
  end subroutine

  subroutine pack2(s, out)
    integer, intent(in) :: s
    real(8), intent(out) :: out(:)
    integer :: n, g
    do n = 1, size(map2)
      g = int(map2(n)) - 1
      out(n) = ssh(mod(g, nlon) + 1, g / nlon + 1, s)
    end do
  end subroutine

  subroutine write_history()
    type(tapio_io) :: io
    type(tapio_var) :: v3(4), v2, lon, lat, depth
    type(tapio_file) :: out
    real(8), allocatable, target :: f3(:, :), f2(:)
    real(8), target :: xlon(nlon), ylat(nlat), zdep(nz)
    integer :: v, s, i
    call check(tapio_declare_io(ctx, "licom_history", io))
    call check(tapio_put_att(io, "", "title", "LICOM-like ocean history"))
    call check(tapio_def_var(io, "lon", TAPIO_DOUBLE, [nlon], ["lon"], lon, fixed=.true.))
    call check(tapio_def_var(io, "lat", TAPIO_DOUBLE, [nlat], ["lat"], lat, fixed=.true.))
    call check(tapio_def_var(io, "depth", TAPIO_DOUBLE, [nz], ["depth"], depth, fixed=.true.))
    do v = 1, 4
      call check(tapio_def_var(io, trim(names3(v)), TAPIO_DOUBLE, [nlon, nlat, nz], &
                               ["lon  ", "lat  ", "depth"], v3(v)))
      call check(tapio_put_att(io, trim(names3(v)), "units", trim(units3(v))))
      call check(tapio_put_att(io, trim(names3(v)), "_FillValue", [fill]))
    end do
    call check(tapio_def_var(io, "ssh", TAPIO_DOUBLE, [nlon, nlat], ["lon", "lat"], v2))
    call check(tapio_put_att(io, "ssh", "units", "m"))
    call check(tapio_put_att(io, "ssh", "_FillValue", [fill]))
    xlon = [(5d0 + 10d0 * (i - 1), i = 1, nlon)]
    ylat = [(-57.5d0 + 5d0 * (i - 1), i = 1, nlat)]
    zdep = [(10d0 * i * i, i = 1, nz)]

    allocate(f3(size(map3), 4), f2(size(map2)))
    call check(tapio_open(io, path, TAPIO_WRITE, out))
    do s = 0, steps - 1
      call check(tapio_begin_step(out))
      if (s == 0 .and. rank == 0) then  ! fixed variables: once, from one rank
        call check(tapio_put(out, lon, xlon))
        call check(tapio_put(out, lat, ylat))
        call check(tapio_put(out, depth, zdep))
      end if
      do v = 1, 4
        call pack3(v, s, f3(:, v))
        call check(tapio_set_compdof(v3(v), map3))
        call check(tapio_put(out, v3(v), f3(:, v)))  ! a column of f3: contiguous, no copy
      end do
      call pack2(s, f2)
      call check(tapio_set_compdof(v2, map2))
      call check(tapio_put(out, v2, f2))
      call check(tapio_end_step(out))
    end do
    call check(tapio_close(out))
  end subroutine

  ! Every rank reads its ocean points step by step through its map and compares; then all
  ! steps of its whole block of ssh at once (land included, which must be _FillValue).
  subroutine read_history()
    type(tapio_io) :: io
    type(tapio_var) :: v3(4), v2
    type(tapio_file) :: in
    real(8), allocatable, target :: got3(:, :), want3(:), got2(:), want2(:), block(:, :, :)
    integer :: v, s, st, n, i, j
    call check(tapio_declare_io(ctx, "licom_history", io))
    call check(tapio_open(io, path, TAPIO_READ, in))
    call check(tapio_steps(in, n))
    if (n /= steps) bad = bad + 1
    allocate(got3(size(map3), 4), want3(size(map3)), got2(size(map2)), want2(size(map2)))
    do v = 1, 4
      call check(tapio_inq_var(io, trim(names3(v)), v3(v)))
      call check(tapio_set_compdof(v3(v), map3))
    end do
    call check(tapio_inq_var(io, "ssh", v2))
    call check(tapio_set_compdof(v2, map2))
    s = 0
    do
      call check(tapio_begin_step(in, st))
      if (st == TAPIO_STEP_NOT_READY) cycle  ! a subfile writer has not committed it yet: ask again
      if (st == TAPIO_STEP_WRITER_GONE) then  ! its writer was killed: s steps were committed
        print '(a, i0, a)', "the writer did not close the history; ", s, " steps committed"
        bad = bad + 1
        exit
      end if
      if (st == TAPIO_STEP_END_OF_STREAM) exit
      do v = 1, 4
        call check(tapio_get(in, v3(v), got3(:, v)))
      end do
      call check(tapio_get(in, v2, got2))
      call check(tapio_end_step(in))
      do v = 1, 4
        call pack3(v, s, want3)
        bad = bad + count(got3(:, v) /= want3)
      end do
      call pack2(s, want2)
      bad = bad + count(got2 /= want2)
      s = s + 1
    end do
    allocate(block(ni, nj, steps))
    call check(tapio_set_selection(v2, [i0, j0], [ni, nj]))
    call check(tapio_set_steps(v2, 1, steps))
    call check(tapio_get(in, v2, block))
    call check(tapio_perform_gets(in))
    do s = 1, steps
      do j = 1, nj
        do i = 1, ni
          if (kmt(i0 + i - 1, j0 + j - 1) == 0) then
            if (block(i, j, s) /= fill) bad = bad + 1
          else if (block(i, j, s) /= ssh(i0 + i - 1, j0 + j - 1, s - 1)) then
            bad = bad + 1
          end if
        end do
      end do
    end do
    call check(tapio_close(in))
  end subroutine
end program
