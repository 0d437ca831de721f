! The C API's interfaces (include/tapio/tapio.h) for the Fortran module `tapio`, one to one.
! Handles are type(c_ptr); strings are NUL-terminated (c_string); a string that C allows to be
! NULL (a config path, a variable name for global attributes) is passed as type(c_ptr).
module tapio_c
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: c_string
  public :: c_tapio_init_f, c_tapio_finalize, c_tapio_declare_io, c_tapio_io_set_engine, &
            c_tapio_io_set_parameter, c_tapio_define_variable, c_tapio_inquire_variable, &
            c_tapio_define_dimension, c_tapio_io_dimension_count, c_tapio_io_dimension, &
            c_tapio_define_attribute, c_tapio_define_string_attribute, &
            c_tapio_inquire_attribute, c_tapio_read_attribute, c_tapio_var_ndims, &
            c_tapio_var_shape, c_tapio_var_type, c_tapio_var_set_selection, &
            c_tapio_var_set_offsets, c_tapio_var_set_step_selection, &
            c_tapio_decomp_from_offsets, c_tapio_decomp_free, c_tapio_var_set_decomp, &
            c_tapio_var_set_joined_count, &
            c_tapio_var_selection_size, c_tapio_open, c_tapio_begin_step, c_tapio_end_step, &
            c_tapio_put, c_tapio_get, c_tapio_put_sel, c_tapio_get_sel, c_tapio_fail_step, &
            c_tapio_perform_puts, c_tapio_perform_gets, &
            c_tapio_steps, c_tapio_current_step, c_tapio_close, c_tapio_last_error, &
            c_tapio_status_string

  interface
    integer(c_int) function c_tapio_init_f(comm, config, ctx) bind(C, name="tapio_init_f")
      import :: c_int, c_ptr
      integer(c_int), value :: comm
      type(c_ptr), value :: config
      type(c_ptr), intent(out) :: ctx
    end function
    integer(c_int) function c_tapio_finalize(ctx) bind(C, name="tapio_finalize")
      import :: c_int, c_ptr
      type(c_ptr), value :: ctx
    end function
    integer(c_int) function c_tapio_declare_io(ctx, name, io) bind(C, name="tapio_declare_io")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: io
    end function
    integer(c_int) function c_tapio_io_set_engine(io, engine) bind(C, name="tapio_io_set_engine")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: engine(*)
    end function
    integer(c_int) function c_tapio_io_set_parameter(io, key, value) &
        bind(C, name="tapio_io_set_parameter")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: key(*), value(*)
    end function
    integer(c_int) function c_tapio_define_variable(io, name, type, ndims, shape, dim_names, &
        flags, var) bind(C, name="tapio_define_variable")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: type, ndims, flags
      integer(c_int64_t), intent(in) :: shape(*)
      type(c_ptr), intent(in) :: dim_names(*)
      type(c_ptr), intent(out) :: var
    end function
    integer(c_int) function c_tapio_inquire_variable(io, name, var) &
        bind(C, name="tapio_inquire_variable")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: var
    end function
    integer(c_int) function c_tapio_define_attribute(io, var_name, name, type, count, data) &
        bind(C, name="tapio_define_attribute")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: io, var_name, data
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), value :: type
      integer(c_size_t), value :: count
    end function
    integer(c_int) function c_tapio_define_string_attribute(io, var_name, name, value) &
        bind(C, name="tapio_define_string_attribute")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io, var_name
      character(kind=c_char), intent(in) :: name(*), value(*)
    end function
    integer(c_int) function c_tapio_inquire_attribute(io, var_name, name, type, count) &
        bind(C, name="tapio_inquire_attribute")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: io, var_name
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: type
      integer(c_size_t), intent(out) :: count
    end function
    integer(c_int) function c_tapio_read_attribute(io, var_name, name, data) &
        bind(C, name="tapio_read_attribute")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io, var_name, data
      character(kind=c_char), intent(in) :: name(*)
    end function
    integer(c_int) function c_tapio_define_dimension(io, name, length) &
        bind(C, name="tapio_define_dimension")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: length
    end function
    integer(c_int) function c_tapio_io_dimension_count(io, count) &
        bind(C, name="tapio_io_dimension_count")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: io
      integer(c_size_t), intent(out) :: count
    end function
    integer(c_int) function c_tapio_io_dimension(io, index, name, length) &
        bind(C, name="tapio_io_dimension")
      import :: c_int, c_ptr, c_size_t, c_int64_t
      type(c_ptr), value :: io
      integer(c_size_t), value :: index
      type(c_ptr), intent(out) :: name
      integer(c_int64_t), intent(out) :: length
    end function
    integer(c_int) function c_tapio_var_ndims(var, ndims) bind(C, name="tapio_var_ndims")
      import :: c_int, c_ptr
      type(c_ptr), value :: var
      integer(c_int), intent(out) :: ndims
    end function
    integer(c_int) function c_tapio_var_shape(var, shape) bind(C, name="tapio_var_shape")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: var
      integer(c_int64_t), intent(out) :: shape(*)
    end function
    integer(c_int) function c_tapio_var_type(var, type) bind(C, name="tapio_var_type")
      import :: c_int, c_ptr
      type(c_ptr), value :: var
      integer(c_int), intent(out) :: type
    end function
    integer(c_int) function c_tapio_var_set_selection(var, start, count) &
        bind(C, name="tapio_var_set_selection")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: var
      integer(c_int64_t), intent(in) :: start(*), count(*)
    end function
    ! count is uint64_t in C: a negative Fortran count arrives as its two's complement, which
    ! tapio reports as negative.
    integer(c_int) function c_tapio_var_set_joined_count(var, count) &
        bind(C, name="tapio_var_set_joined_count")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: var
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function c_tapio_var_set_offsets(var, n, offsets) &
        bind(C, name="tapio_var_set_offsets")
      import :: c_int, c_ptr, c_int64_t, c_size_t
      type(c_ptr), value :: var
      integer(c_size_t), value :: n
      integer(c_int64_t), intent(in) :: offsets(*)
    end function
    integer(c_int) function c_tapio_decomp_from_offsets(ctx, ndims, shape, n, offsets, decomp) &
        bind(C, name="tapio_decomp_from_offsets")
      import :: c_int, c_ptr, c_int64_t, c_size_t
      type(c_ptr), value :: ctx
      integer(c_int), value :: ndims
      integer(c_int64_t), intent(in) :: shape(*)
      integer(c_size_t), value :: n
      integer(c_int64_t), intent(in) :: offsets(*)
      type(c_ptr), intent(out) :: decomp
    end function
    integer(c_int) function c_tapio_decomp_free(decomp) bind(C, name="tapio_decomp_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: decomp
    end function
    integer(c_int) function c_tapio_var_set_decomp(var, decomp) &
        bind(C, name="tapio_var_set_decomp")
      import :: c_int, c_ptr
      type(c_ptr), value :: var, decomp
    end function
    integer(c_int) function c_tapio_var_set_step_selection(var, first, count) &
        bind(C, name="tapio_var_set_step_selection")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: var
      integer(c_int64_t), value :: first, count
    end function
    integer(c_int) function c_tapio_var_selection_size(var, elements) &
        bind(C, name="tapio_var_selection_size")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: var
      integer(c_int64_t), intent(out) :: elements
    end function
    integer(c_int) function c_tapio_open(io, path, mode, engine) bind(C, name="tapio_open")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: io
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: mode
      type(c_ptr), intent(out) :: engine
    end function
    integer(c_int) function c_tapio_begin_step(engine, status) bind(C, name="tapio_begin_step")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine
      integer(c_int), intent(out) :: status
    end function
    integer(c_int) function c_tapio_end_step(engine) bind(C, name="tapio_end_step")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine
    end function
    integer(c_int) function c_tapio_put(engine, var, memtype, data) bind(C, name="tapio_put")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine, var, data
      integer(c_int), value :: memtype
    end function
    integer(c_int) function c_tapio_get(engine, var, memtype, data) bind(C, name="tapio_get")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine, var, data
      integer(c_int), value :: memtype
    end function
    integer(c_int) function c_tapio_put_sel(engine, var, start, count, memtype, data) &
        bind(C, name="tapio_put_sel")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: engine, var, data
      integer(c_int64_t), intent(in) :: start(*), count(*)
      integer(c_int), value :: memtype
    end function
    integer(c_int) function c_tapio_get_sel(engine, var, start, count, memtype, data) &
        bind(C, name="tapio_get_sel")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: engine, var, data
      integer(c_int64_t), intent(in) :: start(*), count(*)
      integer(c_int), value :: memtype
    end function
    integer(c_int) function c_tapio_fail_step(engine, code, message) &
        bind(C, name="tapio_fail_step")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: engine
      integer(c_int), value :: code
      character(kind=c_char), intent(in) :: message(*)
    end function
    integer(c_int) function c_tapio_perform_puts(engine) bind(C, name="tapio_perform_puts")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine
    end function
    integer(c_int) function c_tapio_perform_gets(engine) bind(C, name="tapio_perform_gets")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine
    end function
    integer(c_int) function c_tapio_steps(engine, steps) bind(C, name="tapio_steps")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: engine
      integer(c_int64_t), intent(out) :: steps
    end function
    integer(c_int) function c_tapio_current_step(engine, step) bind(C, name="tapio_current_step")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: engine
      integer(c_int64_t), intent(out) :: step
    end function
    integer(c_int) function c_tapio_close(engine) bind(C, name="tapio_close")
      import :: c_int, c_ptr
      type(c_ptr), value :: engine
    end function
    type(c_ptr) function c_tapio_last_error() bind(C, name="tapio_last_error")
      import :: c_ptr
    end function
    type(c_ptr) function c_tapio_status_string(status) bind(C, name="tapio_status_string")
      import :: c_int, c_ptr
      integer(c_int), value :: status
    end function
  end interface

contains

  ! A Fortran string as C wants it: trailing blanks dropped (as netCDF-Fortran does), NUL added.
  function c_string(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: cs
    cs = trim(s) // c_null_char
  end function
end module tapio_c
