! tapio for Fortran 2008: `use tapio`, over the C API through ISO_C_BINDING.
!
! Conventions follow netCDF-Fortran and PIO:
!  - every routine is an integer function returning a status (TAPIO_OK = 0); tapio_strerror(status)
!    gives a short text and tapio_last_error() the full message (file, variable, rank);
!  - shapes, start and count are given in Fortran order and 1-based: a(nlon, nlat, nz) is the
!    file's (nz, nlat, nlon), exactly as netCDF-Fortran maps it; the data is never transposed,
!    since column-major memory of a(nlon, nlat, nz) is the C-order memory of (nz, nlat, nlon);
!  - irregular maps are PIO compdof lists (1-based flattened indices);
!  - steps are 1-based, like netCDF-Fortran's record index;
!  - the communicator is an integer handle (MPI_COMM_WORLD from `use mpi`, or comm%MPI_VAL).
! tapio_put and tapio_get take real(4), real(8), integer(4) and integer(8) arrays of any rank
! (scalars too) by address: no copy. They are deferred like the C calls: a put's array must stay
! alive and unchanged, a get's is filled, at tapio_end_step / tapio_perform_puts / _gets. Give
! such arrays the TARGET attribute, so the compiler neither copies nor moves them.
module tapio
  use, intrinsic :: iso_c_binding
  use tapio_c, only: c_tapio_init_f, c_tapio_finalize, c_tapio_declare_io, &
                     c_tapio_io_set_engine, c_tapio_io_set_parameter, c_tapio_define_variable, &
                     c_tapio_inquire_variable, c_tapio_define_attribute, &
                     c_tapio_define_dimension, c_tapio_io_dimension_count, c_tapio_io_dimension, &
                     c_tapio_define_string_attribute, c_tapio_inquire_attribute, &
                     c_tapio_read_attribute, c_tapio_var_ndims, c_tapio_var_shape, &
                     c_tapio_var_set_selection, c_tapio_var_set_offsets, &
                     c_tapio_decomp_from_offsets, c_tapio_decomp_free, c_tapio_var_set_decomp, &
                     c_tapio_var_set_joined_count, &
                     c_tapio_var_set_step_selection, c_tapio_var_selection_size, c_tapio_open, &
                     c_tapio_begin_step, c_tapio_end_step, c_tapio_put, c_tapio_get, &
                     c_tapio_put_sel, c_tapio_get_sel, c_tapio_fail_step, &
                     c_tapio_perform_puts, c_tapio_perform_gets, c_tapio_steps, &
                     c_tapio_close, c_tapio_last_error, &
                     c_tapio_status_string, c_string
  implicit none
  private

  ! Status codes (tapio_types.h).
  integer, parameter, public :: TAPIO_OK = 0, TAPIO_ERR_ARG = 1, TAPIO_ERR_STATE = 2, &
    TAPIO_ERR_TYPE = 3, TAPIO_ERR_SHAPE = 4, TAPIO_ERR_NOT_FOUND = 5, TAPIO_ERR_CONFIG = 6, &
    TAPIO_ERR_IO = 7, TAPIO_ERR_FORMAT = 8, TAPIO_ERR_CHECKSUM = 9, TAPIO_ERR_MPI = 10, &
    TAPIO_ERR_NOMEM = 11, TAPIO_ERR_UNSUPPORTED = 12, TAPIO_ERR_INTERNAL = 13, &
    TAPIO_ERR_RANGE = 14
  ! Element types: the kinds tapio_put/tapio_get accept, for tapio_def_var.
  integer, parameter, public :: TAPIO_SHORT = 3, TAPIO_INT = 5, TAPIO_INT64 = 7, TAPIO_REAL = 9, &
    TAPIO_DOUBLE = 10, TAPIO_CHAR = 11
  integer, parameter, public :: TAPIO_WRITE = 0, TAPIO_READ = 1, TAPIO_APPEND = 2
  integer, parameter, public :: TAPIO_UNLIMITED = 0  ! tapio_def_dim's length of the step dim
  integer, parameter, public :: TAPIO_STEP_OK = 0, TAPIO_STEP_END_OF_STREAM = 1, &
    TAPIO_STEP_NOT_READY = 2, TAPIO_STEP_WRITER_GONE = 3

  type, public :: tapio_context
    type(c_ptr) :: p = c_null_ptr
  end type
  type, public :: tapio_io
    type(c_ptr) :: p = c_null_ptr
  end type
  type, public :: tapio_var
    type(c_ptr) :: p = c_null_ptr
  end type
  type, public :: tapio_file
    type(c_ptr) :: p = c_null_ptr
  end type
  type, public :: tapio_decomp
    type(c_ptr) :: p = c_null_ptr
  end type

  public :: tapio_init, tapio_finalize, tapio_declare_io, tapio_set_engine, tapio_set_parameter
  public :: tapio_def_var, tapio_inq_var, tapio_inq_var_shape, tapio_put_att, tapio_get_att
  public :: tapio_def_dim, tapio_inq_ndims, tapio_inq_dim
  public :: tapio_set_selection, tapio_set_compdof, tapio_set_steps, tapio_set_joined_count
  public :: tapio_init_decomp, tapio_set_decomp, tapio_free_decomp
  public :: tapio_open, tapio_begin_step, tapio_end_step, tapio_put, tapio_get
  public :: tapio_perform_puts, tapio_perform_gets, tapio_steps, tapio_close
  public :: tapio_strerror, tapio_last_error

  interface tapio_put
    module procedure put_real4, put_real8, put_int2, put_int4, put_int8, put_char
  end interface
  interface tapio_get
    module procedure get_real4, get_real8, get_int2, get_int4, get_int8, get_char
  end interface
  interface tapio_put_att
    module procedure put_att_text, put_att_real8, put_att_int4
  end interface
  interface tapio_get_att
    module procedure get_att_text
  end interface

  ! A message for errors found here, before the C API is called (non-contiguous array, size
  ! mismatch); tapio_last_error returns it until the next failing C call.
  character(len=:), allocatable :: local_error
  logical :: local_error_is_last = .false.

contains

  integer function tapio_init(comm, config, ctx) result(status)
    integer, intent(in) :: comm
    character(len=*), intent(in), optional :: config
    type(tapio_context), intent(out) :: ctx
    character(kind=c_char, len=:), allocatable, target :: path
    if (present(config)) then
      path = c_string(config)
      status = c_status(c_tapio_init_f(int(comm, c_int), c_loc(path), ctx%p))
    else  ! NULL: the file named by TAPIO_CONFIG, if any
      status = c_status(c_tapio_init_f(int(comm, c_int), c_null_ptr, ctx%p))
    end if
  end function

  ! The handles stay as they are: tapio recognises a finalized context's or a closed file's
  ! handle and answers TAPIO_ERR_ARG, naming what happened, instead of crashing.
  integer function tapio_finalize(ctx) result(status)
    type(tapio_context), intent(in) :: ctx
    status = c_status(c_tapio_finalize(ctx%p))
  end function

  integer function tapio_declare_io(ctx, name, io) result(status)
    type(tapio_context), intent(in) :: ctx
    character(len=*), intent(in) :: name
    type(tapio_io), intent(out) :: io
    status = c_status(c_tapio_declare_io(ctx%p, c_string(name), io%p))
  end function

  ! engine: "collective", "subfile", ...; "" chooses by path. A config rule overrides it.
  integer function tapio_set_engine(io, engine) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: engine
    status = c_status(c_tapio_io_set_engine(io%p, c_string(engine)))
  end function

  integer function tapio_set_parameter(io, key, value) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: key, value
    status = c_status(c_tapio_io_set_parameter(io%p, c_string(key), c_string(value)))
  end function

  ! Define a variable of the Fortran shape dimlens (dimnames alike, Fortran order). A record
  ! variable (the default) has one value per step; fixed = .true. makes one value per file.
  ! fixed: one value per file. joined: a joined array (particles): its last dimension, the
  ! file's first, has length 0 here, and each rank gives its own with tapio_set_joined_count.
  integer function tapio_def_var(io, name, xtype, dimlens, dimnames, var, fixed, joined) &
      result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: name
    integer, intent(in) :: xtype
    integer, intent(in) :: dimlens(:)
    character(len=*), intent(in) :: dimnames(:)
    type(tapio_var), intent(out) :: var
    logical, intent(in), optional :: fixed, joined
    integer(c_int64_t) :: shape(max(size(dimlens), 1))
    character(kind=c_char, len=len(dimnames) + 1), target :: cnames(max(size(dimnames), 1))
    type(c_ptr) :: name_ptrs(max(size(dimnames), 1))
    integer :: n, i
    integer(c_int) :: flags
    n = size(dimlens)
    if (size(dimnames) /= n) then
      status = local_failure(TAPIO_ERR_ARG, "tapio_def_var: variable '" // name // &
                             "': dimlens and dimnames differ in size")
      return
    end if
    do i = 1, n  ! reversed: the file's C order
      shape(i) = dimlens(n + 1 - i)
      cnames(i) = trim(dimnames(n + 1 - i)) // c_null_char
      name_ptrs(i) = c_loc(cnames(i))
    end do
    flags = 0
    if (present(fixed)) then
      if (fixed) flags = 1
    end if
    if (present(joined)) then
      if (joined) flags = ior(flags, 2_c_int)
    end if
    status = c_status(c_tapio_define_variable(io%p, c_string(name), int(xtype, c_int), &
                      int(n, c_int), shape, name_ptrs, flags, var%p))
  end function

  ! Declare a dimension (length TAPIO_UNLIMITED: the one steps go along): the file numbers the
  ! declared dimensions first, in this order, as netCDF-Fortran's nf90_def_dim does.
  integer function tapio_def_dim(io, name, length) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: name
    integer, intent(in) :: length
    status = c_status(c_tapio_define_dimension(io%p, c_string(name), int(length, c_int64_t)))
  end function

  ! The number of declared dimensions (after opening for reading or appending: the file's).
  integer function tapio_inq_ndims(io, ndims) result(status)
    type(tapio_io), intent(in) :: io
    integer, intent(out) :: ndims
    integer(c_size_t) :: n
    status = c_status(c_tapio_io_dimension_count(io%p, n))
    ndims = int(n)
  end function

  ! Declared dimension dimid (1-based, as netCDF-Fortran's ids): its name and length (0 for the
  ! unlimited one).
  integer function tapio_inq_dim(io, dimid, name, length) result(status)
    type(tapio_io), intent(in) :: io
    integer, intent(in) :: dimid
    character(len=:), allocatable, intent(out) :: name
    integer, intent(out) :: length
    type(c_ptr) :: cname
    integer(c_int64_t) :: clength
    status = c_status(c_tapio_io_dimension(io%p, int(dimid - 1, c_size_t), cname, clength))
    if (status /= TAPIO_OK) then
      name = ""
      length = 0
      return
    end if
    name = from_c(cname)
    length = int(clength)
  end function

  integer function tapio_inq_var(io, name, var) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: name
    type(tapio_var), intent(out) :: var
    status = c_status(c_tapio_inquire_variable(io%p, c_string(name), var%p))
  end function

  ! The variable's shape in Fortran order (without steps); dimlens must hold ndims entries.
  integer function tapio_inq_var_shape(var, ndims, dimlens) result(status)
    type(tapio_var), intent(in) :: var
    integer, intent(out) :: ndims
    integer, intent(out), optional :: dimlens(:)
    integer(c_int) :: nd
    integer(c_int64_t), allocatable :: shape(:)
    status = c_status(c_tapio_var_ndims(var%p, nd))
    if (status /= TAPIO_OK) return
    ndims = nd
    allocate(shape(max(nd, 1)))
    status = c_status(c_tapio_var_shape(var%p, shape))
    if (status /= TAPIO_OK .or. .not. present(dimlens)) return
    if (size(dimlens) < nd) then
      status = local_failure(TAPIO_ERR_ARG, "tapio_inq_var_shape: dimlens is too short")
      return
    end if
    dimlens(1:nd) = int(shape(nd:1:-1))
  end function

  ! Attributes of a variable (var_name) or global (var_name = "").
  integer function put_att_text(io, var_name, name, value) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: var_name, name, value
    character(kind=c_char, len=len(var_name) + 1), target :: vname
    status = c_status(c_tapio_define_string_attribute(io%p, var_ptr(var_name, vname), &
                      c_string(name), c_string(value)))
  end function

  integer function put_att_real8(io, var_name, name, values) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: var_name, name
    real(c_double), intent(in), target :: values(:)
    character(kind=c_char, len=len(var_name) + 1), target :: vname
    status = c_status(c_tapio_define_attribute(io%p, var_ptr(var_name, vname), c_string(name), &
                      int(TAPIO_DOUBLE, c_int), size(values, kind=c_size_t), c_loc(values)))
  end function

  integer function put_att_int4(io, var_name, name, values) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: var_name, name
    integer(c_int32_t), intent(in), target :: values(:)
    character(kind=c_char, len=len(var_name) + 1), target :: vname
    status = c_status(c_tapio_define_attribute(io%p, var_ptr(var_name, vname), c_string(name), &
                      int(TAPIO_INT, c_int), size(values, kind=c_size_t), c_loc(values)))
  end function

  ! A text attribute's value (blank-padded or cut to len(value)).
  integer function get_att_text(io, var_name, name, value) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: var_name, name
    character(len=*), intent(out) :: value
    integer(c_int) :: atype
    integer(c_size_t) :: n
    character(kind=c_char), allocatable, target :: buf(:)
    character(kind=c_char, len=len(var_name) + 1), target :: vname
    integer :: i
    value = ""
    status = c_status(c_tapio_inquire_attribute(io%p, var_ptr(var_name, vname), c_string(name), &
                      atype, n))
    if (status /= TAPIO_OK) return
    if (atype /= 11) then
      status = local_failure(TAPIO_ERR_TYPE, "tapio_get_att: attribute '" // name // &
                             "' is not text")
      return
    end if
    allocate(buf(max(n, 1_c_size_t)))
    status = c_status(c_tapio_read_attribute(io%p, var_ptr(var_name, vname), c_string(name), &
                      c_loc(buf)))
    do i = 1, int(min(n, int(len(value), c_size_t)))
      value(i:i) = buf(i)
    end do
  end function

  ! This rank's block: start (1-based) and count in Fortran order.
  integer function tapio_set_selection(var, start, count) result(status)
    type(tapio_var), intent(in) :: var
    integer, intent(in) :: start(:), count(:)
    integer(c_int64_t) :: cstart(max(size(start), 1)), ccount(max(size(count), 1))
    integer :: n
    n = size(start)
    if (size(count) /= n) then
      status = local_failure(TAPIO_ERR_ARG, "tapio_set_selection: start and count differ in size")
      return
    end if
    cstart(1:n) = start(n:1:-1) - 1
    ccount(1:n) = count(n:1:-1)
    status = c_status(c_tapio_var_set_selection(var%p, cstart, ccount))
  end function

  ! A joined array: this rank's length along its last (Fortran) dimension for the next put. A
  ! negative count is TAPIO_ERR_ARG.
  integer function tapio_set_joined_count(var, count) result(status)
    type(tapio_var), intent(in) :: var
    integer(c_int64_t), intent(in) :: count
    status = c_status(c_tapio_var_set_joined_count(var%p, count))
  end function

  ! An irregular selection as a PIO compdof: 1-based indices into the flattened array (the same
  ! index in Fortran and C order). Memory holds the elements in list order.
  integer function tapio_set_compdof(var, compdof) result(status)
    type(tapio_var), intent(in) :: var
    integer(c_int64_t), intent(in) :: compdof(:)
    integer(c_int64_t), allocatable :: offsets(:)
    allocate(offsets, source=compdof - 1)  ! tapio copies the list at once: this may go
    status = c_status(c_tapio_var_set_offsets(var%p, size(offsets, kind=c_size_t), offsets))
  end function

  ! A decomposition: a PIO compdof (1-based indices into the flattened array) of arrays of
  ! dimlens (Fortran order, as tapio_def_var takes them), checked once and given to any number
  ! of variables of that shape with tapio_set_decomp, which reads no map (as PIO_initdecomp).
  integer function tapio_init_decomp(ctx, dimlens, compdof, decomp) result(status)
    type(tapio_context), intent(in) :: ctx
    integer, intent(in) :: dimlens(:)
    integer(c_int64_t), intent(in) :: compdof(:)
    type(tapio_decomp), intent(out) :: decomp
    integer(c_int64_t) :: shape(max(size(dimlens), 1))
    integer(c_int64_t), allocatable :: offsets(:)
    integer :: n, i
    n = size(dimlens)
    do i = 1, n  ! reversed: the file's C order
      shape(i) = int(dimlens(n + 1 - i), c_int64_t)
    end do
    allocate(offsets, source=compdof - 1)  ! tapio keeps its own copy
    status = c_status(c_tapio_decomp_from_offsets(ctx%p, int(n, c_int), shape, &
                                                  size(offsets, kind=c_size_t), offsets, &
                                                  decomp%p))
  end function

  ! var's selection becomes decomp's (var's shape must be the decomposition's).
  integer function tapio_set_decomp(var, decomp) result(status)
    type(tapio_var), intent(in) :: var
    type(tapio_decomp), intent(in) :: decomp
    status = c_status(c_tapio_var_set_decomp(var%p, decomp%p))
  end function

  ! Frees the handle; variables that took it keep their selection.
  integer function tapio_free_decomp(decomp) result(status)
    type(tapio_decomp), intent(inout) :: decomp
    status = c_status(c_tapio_decomp_free(decomp%p))
    decomp%p = c_null_ptr
  end function

  ! Read mode: the steps first .. first+count-1 (1-based) a get covers; the array then holds
  ! count selections one after another (the step is the slowest, last Fortran dimension).
  integer function tapio_set_steps(var, first, count) result(status)
    type(tapio_var), intent(in) :: var
    integer, intent(in) :: first, count
    if (first < 1) then
      status = local_failure(TAPIO_ERR_ARG, "tapio_set_steps: steps are 1-based")
      return
    end if
    status = c_status(c_tapio_var_set_step_selection(var%p, int(first - 1, c_int64_t), &
                      int(count, c_int64_t)))
  end function

  integer function tapio_open(io, path, mode, file) result(status)
    type(tapio_io), intent(in) :: io
    character(len=*), intent(in) :: path
    integer, intent(in) :: mode
    type(tapio_file), intent(out) :: file
    status = c_status(c_tapio_open(io%p, c_string(path), int(mode, c_int), file%p))
  end function

  ! step_status (out, optional): TAPIO_STEP_OK, or when reading and no step is available:
  ! TAPIO_STEP_END_OF_STREAM (the writer closed), TAPIO_STEP_NOT_READY (a subfile dataset's
  ! writer has not committed the next step yet: call again later) or TAPIO_STEP_WRITER_GONE
  ! (its writer did not close and committed nothing for writer_timeout seconds).
  integer function tapio_begin_step(file, step_status) result(status)
    type(tapio_file), intent(in) :: file
    integer, intent(out), optional :: step_status
    integer(c_int) :: s
    s = 0
    status = c_status(c_tapio_begin_step(file%p, s))
    if (present(step_status)) step_status = s
  end function

  integer function tapio_end_step(file) result(status)
    type(tapio_file), intent(in) :: file
    status = c_status(c_tapio_end_step(file%p))
  end function

  integer function tapio_perform_puts(file) result(status)
    type(tapio_file), intent(in) :: file
    status = c_status(c_tapio_perform_puts(file%p))
  end function

  integer function tapio_perform_gets(file) result(status)
    type(tapio_file), intent(in) :: file
    status = c_status(c_tapio_perform_gets(file%p))
  end function

  ! steps: the steps in the file (read) or written so far (write, append).
  integer function tapio_steps(file, steps) result(status)
    type(tapio_file), intent(in) :: file
    integer, intent(out) :: steps
    integer(c_int64_t) :: n
    status = c_status(c_tapio_steps(file%p, n))
    steps = int(n)
  end function

  integer function tapio_close(file) result(status)
    type(tapio_file), intent(in) :: file
    status = c_status(c_tapio_close(file%p))
  end function

  ! ---- put / get: one checked call for every kind and rank ----------------------------------
  integer function put_real4(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    real(c_float), intent(in), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_REAL, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .true., start, count)
  end function

  integer function put_real8(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    real(c_double), intent(in), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_DOUBLE, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .true., start, count)
  end function

  integer function put_int2(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer(c_int16_t), intent(in), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_SHORT, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .true., start, count)
  end function

  ! Characters as netCDF-Fortran stores them: a CHAR variable whose first (fastest) dimension
  ! is the string length, so names(10) of len 8 is a variable of shape [8, 10].
  integer function put_char(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    character(kind=c_char, len=*), intent(in), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_CHAR, c_loc(a), &
                           size(a, kind=c_int64_t) * len(a, kind=c_int64_t), &
                           is_contiguous(a), .true., start, count)
  end function

  integer function put_int4(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer(c_int32_t), intent(in), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_INT, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .true., start, count)
  end function

  integer function put_int8(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer(c_int64_t), intent(in), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_INT64, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .true., start, count)
  end function

  integer function get_real4(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    real(c_float), intent(inout), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_REAL, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .false., start, count)
  end function

  integer function get_real8(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    real(c_double), intent(inout), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_DOUBLE, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .false., start, count)
  end function

  integer function get_int2(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer(c_int16_t), intent(inout), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_SHORT, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .false., start, count)
  end function

  integer function get_char(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    character(kind=c_char, len=*), intent(inout), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_CHAR, c_loc(a), &
                           size(a, kind=c_int64_t) * len(a, kind=c_int64_t), &
                           is_contiguous(a), .false., start, count)
  end function

  integer function get_int4(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer(c_int32_t), intent(inout), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_INT, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .false., start, count)
  end function

  integer function get_int8(file, var, a, start, count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer(c_int64_t), intent(inout), target :: a(..)
    integer, intent(in), optional :: start(:), count(:)
    status = transfer_data(file, var, TAPIO_INT64, c_loc(a), size(a, kind=c_int64_t), &
                           is_contiguous(a), .false., start, count)
  end function

  ! The checks a C caller makes itself: a strided section (a(1:n:2), a(i,:)) is refused, since
  ! passing it would need a copy that a deferred put or get cannot keep; the element count must
  ! be the selection's (a whole number of selections, for a get over several steps). With
  ! start and count (1-based, Fortran order, as nf90_put_var takes them) the selection is this
  ! call's alone. A put refused here fails its step on every rank, as one the C API refuses.
  integer function transfer_data(file, var, memtype, addr, n, contiguous, put, start, count) &
      result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer, intent(in) :: memtype
    type(c_ptr), intent(in) :: addr
    integer(c_int64_t), intent(in) :: n
    logical, intent(in) :: contiguous, put
    integer, intent(in), optional :: start(:), count(:)
    integer(c_int) :: ignored
    status = checked_transfer(file, var, memtype, addr, n, contiguous, put, start, count)
    if (put .and. status /= TAPIO_OK) &  ! outside a step this does nothing
      ignored = c_tapio_fail_step(file%p, int(status, c_int), c_string(tapio_last_error()))
  end function

  integer function checked_transfer(file, var, memtype, addr, n, contiguous, put, start, &
                                    count) result(status)
    type(tapio_file), intent(in) :: file
    type(tapio_var), intent(in) :: var
    integer, intent(in) :: memtype
    type(c_ptr), intent(in) :: addr
    integer(c_int64_t), intent(in) :: n
    logical, intent(in) :: contiguous, put
    integer, intent(in), optional :: start(:), count(:)
    character(len=*), parameter :: names(2) = ["tapio_get", "tapio_put"]
    character(len=9) :: call_name
    integer(c_int64_t), allocatable :: cstart(:), ccount(:)
    integer(c_int64_t) :: want
    call_name = names(merge(2, 1, put))
    if (.not. contiguous) then
      status = local_failure(TAPIO_ERR_ARG, call_name // ": the array is not contiguous " // &
                             "(a strided section); pass a contiguous array, tapio does not copy")
      return
    end if
    if (present(start) .neqv. present(count)) then
      status = local_failure(TAPIO_ERR_ARG, call_name // ": give both start and count, or neither")
      return
    end if
    if (present(start)) then
      if (size(start) /= size(count)) then
        status = local_failure(TAPIO_ERR_ARG, call_name // ": start and count differ in size")
        return
      end if
      allocate(cstart(max(size(start), 1)), ccount(max(size(count), 1)))
      cstart(1:size(start)) = start(size(start):1:-1) - 1
      ccount(1:size(count)) = count(size(count):1:-1)
      want = product(int(count, c_int64_t))
    else
      status = c_status(c_tapio_var_selection_size(var%p, want))
      if (status /= TAPIO_OK) return
    end if
    ! A get may cover several steps (tapio_set_steps): then any whole number of selections.
    if (n /= want .and. (put .or. want == 0 .or. mod(n, max(want, 1_c_int64_t)) /= 0)) then
      status = local_failure(TAPIO_ERR_SHAPE, call_name // ": shape mismatch: the array has " // &
                             itoa(n) // " elements, the selection " // itoa(want))
      return
    end if
    if (present(start) .and. put) then
      status = c_status(c_tapio_put_sel(file%p, var%p, cstart, ccount, int(memtype, c_int), addr))
    else if (present(start)) then
      status = c_status(c_tapio_get_sel(file%p, var%p, cstart, ccount, int(memtype, c_int), addr))
    else if (put) then
      status = c_status(c_tapio_put(file%p, var%p, int(memtype, c_int), addr))
    else
      status = c_status(c_tapio_get(file%p, var%p, int(memtype, c_int), addr))
    end if
  end function

  ! ---- errors ---------------------------------------------------------------------------------
  ! The short text of a status code, like nf90_strerror.
  function tapio_strerror(status) result(text)
    integer, intent(in) :: status
    character(len=:), allocatable :: text
    text = from_c(c_tapio_status_string(int(status, c_int)))
  end function

  ! The full message of the last failed call (the call, file, variable, rank), "" if none.
  function tapio_last_error() result(text)
    character(len=:), allocatable :: text
    if (local_error_is_last) then
      text = local_error
    else
      text = from_c(c_tapio_last_error())
    end if
  end function

  integer function c_status(rc) result(status)
    integer(c_int), intent(in) :: rc
    status = int(rc)
    if (status /= TAPIO_OK) local_error_is_last = .false.
  end function

  integer function local_failure(code, message) result(status)
    integer, intent(in) :: code
    character(len=*), intent(in) :: message
    local_error = message
    local_error_is_last = .true.
    status = code
  end function

  function from_c(p) result(text)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i
    interface
      integer(c_size_t) function strlen(s) bind(C, name="strlen")
        import :: c_ptr, c_size_t
        type(c_ptr), value :: s
      end function
    end interface
    n = int(strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function

  ! "" names a global attribute: the C API's NULL variable name. Otherwise the name, NUL
  ! terminated in the caller's buffer (one longer than the name), which outlives the C call.
  function var_ptr(var_name, buffer) result(p)
    character(len=*), intent(in) :: var_name
    character(kind=c_char, len=*), intent(out), target :: buffer
    type(c_ptr) :: p
    p = c_null_ptr
    if (len_trim(var_name) == 0) return
    buffer = trim(var_name) // c_null_char
    p = c_loc(buffer)
  end function

  function itoa(n) result(text)
    integer(c_int64_t), intent(in) :: n
    character(len=:), allocatable :: text
    character(len=24) :: buf
    write (buf, '(i0)') n
    text = trim(buf)
  end function
end module tapio
