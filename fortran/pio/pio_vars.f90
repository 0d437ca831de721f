! Non-decomposed data: PIO_put_var and PIO_get_var for text, short, int, real and double, of any
! rank (a scalar too), by file and 1-based varid or by file and var_desc_t: the whole variable,
! a box (start, count: Fortran order, 1-based, as netCDF-Fortran), or one element (index).
! Text goes with each string's trailing blanks as NULs, and comes back blank from its first NUL
! on. Unlike PIO, sizes are checked against the caller's array, so C never reads or writes past
! it: PIO_EINVAL (PIO_ESTS for text) instead; text shorter than the whole variable it is put
! into is padded with NULs.
module pio_vars
  use, intrinsic :: iso_c_binding, only: c_int, c_short, c_float, c_double, c_char, c_long_long, &
                                         c_ptr, c_loc, c_f_pointer, c_null_char
  use pio_types, only: file_desc_t, var_desc_t, pio_noerr, pio_char, pio_short, pio_int, &
                       pio_real, pio_double, pio_max_var_dims
  use pio_c
  use pio_strings, only: c_text, blank_after_nul, pio_ests
  implicit none
  private
  public :: pio_put_var, pio_get_var

  ! netCDF's NC_EINVAL.
  integer, parameter :: einval = -36

  interface pio_put_var
    module procedure put_var_text, put_var_vdesc_text, put_vara_text, put_vara_vdesc_text, &
      put_var1_text, put_var1_vdesc_text, put_var_short, put_var_vdesc_short, put_vara_short, &
      put_vara_vdesc_short, put_var1_short, put_var1_vdesc_short, put_var_int, put_var_vdesc_int, &
      put_vara_int, put_vara_vdesc_int, put_var1_int, put_var1_vdesc_int, put_var_real, &
      put_var_vdesc_real, put_vara_real, put_vara_vdesc_real, put_var1_real, put_var1_vdesc_real, &
      put_var_double, put_var_vdesc_double, put_vara_double, put_vara_vdesc_double, &
      put_var1_double, put_var1_vdesc_double
  end interface
  interface pio_get_var
    module procedure get_var_text, get_var_vdesc_text, get_vara_text, get_vara_vdesc_text, &
      get_var1_text, get_var1_vdesc_text, get_var_short, get_var_vdesc_short, get_vara_short, &
      get_vara_vdesc_short, get_var1_short, get_var1_vdesc_short, get_var_int, get_var_vdesc_int, &
      get_vara_int, get_vara_vdesc_int, get_var1_int, get_var1_vdesc_int, get_var_real, &
      get_var_vdesc_real, get_vara_real, get_vara_vdesc_real, get_var1_real, get_var1_vdesc_real, &
      get_var_double, get_var_vdesc_double, get_vara_double, get_vara_vdesc_double, &
      get_var1_double, get_var1_vdesc_double
  end interface

contains
  integer function put_var_text(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in), contiguous, target :: ival(..)
    character(kind=c_char), pointer :: flat(:)
    character(kind=c_char), allocatable, target :: text(:)
    call c_f_pointer(c_loc(ival), flat, [len(ival) * size(ival)])
    allocate(text(size(flat)))
    text = c_text(flat, len(ival))
    ierr = var_io(file%fh, varid, pio_char, .true., c_loc(text), size(text, kind=c_long_long))
  end function
  integer function put_vara_text(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    character(len=*), intent(in), contiguous, target :: ival(..)
    character(kind=c_char), pointer :: flat(:)
    character(kind=c_char), allocatable, target :: text(:)
    call c_f_pointer(c_loc(ival), flat, [len(ival) * size(ival)])
    allocate(text(size(flat)))
    text = c_text(flat, len(ival))
    ierr = var_io(file%fh, varid, pio_char, .true., &
                  c_loc(text), size(text, kind=c_long_long), start, count)
  end function
  integer function put_var1_text(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    character(len=*), intent(in), target :: ival1
    ierr = put_vara_text(file, varid, index, one_element(size(index), len(ival1)), ival1)
  end function
  integer function put_var_vdesc_text(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in), contiguous, target :: ival(..)
    ierr = put_var_text(file, vardesc%varid, ival)
  end function
  integer function put_vara_vdesc_text(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    character(len=*), intent(in), contiguous, target :: ival(..)
    ierr = put_vara_text(file, vardesc%varid, start, count, ival)
  end function
  integer function put_var1_vdesc_text(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    character(len=*), intent(in), target :: ival1
    ierr = put_var1_text(file, vardesc%varid, index, ival1)
  end function

  integer function put_var_short(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer(c_short), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_short, .true., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function put_vara_short(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    integer(c_short), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_short, .true., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function put_var1_short(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    integer(c_short), intent(in), target :: ival1
    ierr = put_vara_short(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function put_var_vdesc_short(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer(c_short), intent(in), contiguous, target :: ival(..)
    ierr = put_var_short(file, vardesc%varid, ival)
  end function
  integer function put_vara_vdesc_short(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    integer(c_short), intent(in), contiguous, target :: ival(..)
    ierr = put_vara_short(file, vardesc%varid, start, count, ival)
  end function
  integer function put_var1_vdesc_short(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    integer(c_short), intent(in), target :: ival1
    ierr = put_var1_short(file, vardesc%varid, index, ival1)
  end function

  integer function put_var_int(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer(c_int), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_int, .true., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function put_vara_int(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    integer(c_int), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_int, .true., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function put_var1_int(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    integer(c_int), intent(in), target :: ival1
    ierr = put_vara_int(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function put_var_vdesc_int(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer(c_int), intent(in), contiguous, target :: ival(..)
    ierr = put_var_int(file, vardesc%varid, ival)
  end function
  integer function put_vara_vdesc_int(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    integer(c_int), intent(in), contiguous, target :: ival(..)
    ierr = put_vara_int(file, vardesc%varid, start, count, ival)
  end function
  integer function put_var1_vdesc_int(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    integer(c_int), intent(in), target :: ival1
    ierr = put_var1_int(file, vardesc%varid, index, ival1)
  end function

  integer function put_var_real(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    real(c_float), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_real, .true., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function put_vara_real(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    real(c_float), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_real, .true., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function put_var1_real(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    real(c_float), intent(in), target :: ival1
    ierr = put_vara_real(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function put_var_vdesc_real(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    real(c_float), intent(in), contiguous, target :: ival(..)
    ierr = put_var_real(file, vardesc%varid, ival)
  end function
  integer function put_vara_vdesc_real(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    real(c_float), intent(in), contiguous, target :: ival(..)
    ierr = put_vara_real(file, vardesc%varid, start, count, ival)
  end function
  integer function put_var1_vdesc_real(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    real(c_float), intent(in), target :: ival1
    ierr = put_var1_real(file, vardesc%varid, index, ival1)
  end function

  integer function put_var_double(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    real(c_double), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_double, .true., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function put_vara_double(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    real(c_double), intent(in), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_double, .true., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function put_var1_double(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    real(c_double), intent(in), target :: ival1
    ierr = put_vara_double(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function put_var_vdesc_double(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    real(c_double), intent(in), contiguous, target :: ival(..)
    ierr = put_var_double(file, vardesc%varid, ival)
  end function
  integer function put_vara_vdesc_double(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    real(c_double), intent(in), contiguous, target :: ival(..)
    ierr = put_vara_double(file, vardesc%varid, start, count, ival)
  end function
  integer function put_var1_vdesc_double(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    real(c_double), intent(in), target :: ival1
    ierr = put_var1_double(file, vardesc%varid, index, ival1)
  end function

  integer function get_var_text(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(inout), contiguous, target :: ival(..)
    character(kind=c_char), pointer :: flat(:)
    character(len=len(ival)), pointer :: each(:)
    call c_f_pointer(c_loc(ival), flat, [len(ival) * size(ival)])
    flat = ' '
    ierr = var_io(file%fh, varid, pio_char, .false., c_loc(ival), size(flat, kind=c_long_long))
    each => strings(flat, len(ival))
    call blank_after_nul(each)
  end function
  integer function get_vara_text(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    character(len=*), intent(inout), contiguous, target :: ival(..)
    character(kind=c_char), pointer :: flat(:)
    character(len=len(ival)), pointer :: each(:)
    call c_f_pointer(c_loc(ival), flat, [len(ival) * size(ival)])
    flat = ' '
    ierr = var_io(file%fh, varid, pio_char, .false., &
                  c_loc(ival), size(flat, kind=c_long_long), start, count)
    each => strings(flat, len(ival))
    call blank_after_nul(each)
  end function
  integer function get_var1_text(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    character(len=*), intent(inout), target :: ival1
    ierr = get_vara_text(file, varid, index, one_element(size(index), len(ival1)), ival1)
  end function
  integer function get_var_vdesc_text(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(inout), contiguous, target :: ival(..)
    ierr = get_var_text(file, vardesc%varid, ival)
  end function
  integer function get_vara_vdesc_text(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    character(len=*), intent(inout), contiguous, target :: ival(..)
    ierr = get_vara_text(file, vardesc%varid, start, count, ival)
  end function
  integer function get_var1_vdesc_text(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    character(len=*), intent(inout), target :: ival1
    ierr = get_var1_text(file, vardesc%varid, index, ival1)
  end function

  integer function get_var_short(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer(c_short), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_short, .false., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function get_vara_short(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    integer(c_short), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_short, .false., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function get_var1_short(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    integer(c_short), intent(inout), target :: ival1
    ierr = get_vara_short(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function get_var_vdesc_short(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer(c_short), intent(inout), contiguous, target :: ival(..)
    ierr = get_var_short(file, vardesc%varid, ival)
  end function
  integer function get_vara_vdesc_short(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    integer(c_short), intent(inout), contiguous, target :: ival(..)
    ierr = get_vara_short(file, vardesc%varid, start, count, ival)
  end function
  integer function get_var1_vdesc_short(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    integer(c_short), intent(inout), target :: ival1
    ierr = get_var1_short(file, vardesc%varid, index, ival1)
  end function

  integer function get_var_int(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer(c_int), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_int, .false., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function get_vara_int(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    integer(c_int), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_int, .false., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function get_var1_int(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    integer(c_int), intent(inout), target :: ival1
    ierr = get_vara_int(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function get_var_vdesc_int(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer(c_int), intent(inout), contiguous, target :: ival(..)
    ierr = get_var_int(file, vardesc%varid, ival)
  end function
  integer function get_vara_vdesc_int(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    integer(c_int), intent(inout), contiguous, target :: ival(..)
    ierr = get_vara_int(file, vardesc%varid, start, count, ival)
  end function
  integer function get_var1_vdesc_int(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    integer(c_int), intent(inout), target :: ival1
    ierr = get_var1_int(file, vardesc%varid, index, ival1)
  end function

  integer function get_var_real(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    real(c_float), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_real, .false., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function get_vara_real(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    real(c_float), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_real, .false., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function get_var1_real(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    real(c_float), intent(inout), target :: ival1
    ierr = get_vara_real(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function get_var_vdesc_real(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    real(c_float), intent(inout), contiguous, target :: ival(..)
    ierr = get_var_real(file, vardesc%varid, ival)
  end function
  integer function get_vara_vdesc_real(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    real(c_float), intent(inout), contiguous, target :: ival(..)
    ierr = get_vara_real(file, vardesc%varid, start, count, ival)
  end function
  integer function get_var1_vdesc_real(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    real(c_float), intent(inout), target :: ival1
    ierr = get_var1_real(file, vardesc%varid, index, ival1)
  end function

  integer function get_var_double(file, varid, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    real(c_double), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_double, .false., c_loc(ival), size(ival, kind=c_long_long))
  end function
  integer function get_vara_double(file, varid, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, start(:), count(:)
    real(c_double), intent(inout), contiguous, target :: ival(..)
    ierr = var_io(file%fh, varid, pio_double, .false., &
                  c_loc(ival), size(ival, kind=c_long_long), start, count)
  end function
  integer function get_var1_double(file, varid, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, index(:)
    real(c_double), intent(inout), target :: ival1
    ierr = get_vara_double(file, varid, index, one_element(size(index)), ival1)
  end function
  integer function get_var_vdesc_double(file, vardesc, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    real(c_double), intent(inout), contiguous, target :: ival(..)
    ierr = get_var_double(file, vardesc%varid, ival)
  end function
  integer function get_vara_vdesc_double(file, vardesc, start, count, ival) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: start(:), count(:)
    real(c_double), intent(inout), contiguous, target :: ival(..)
    ierr = get_vara_double(file, vardesc%varid, start, count, ival)
  end function
  integer function get_var1_vdesc_double(file, vardesc, index, ival1) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(in) :: index(:)
    real(c_double), intent(inout), target :: ival1
    ierr = get_var1_double(file, vardesc%varid, index, ival1)
  end function

  ! The count of one element at an index of n dimensions; for text, one string of strlen.
  pure function one_element(n, strlen) result(count)
    integer, intent(in) :: n
    integer, intent(in), optional :: strlen
    integer :: count(n)
    count = 1
    if (present(strlen) .and. n > 0) count(1) = strlen
  end function

  ! A character buffer as strings of strlen.
  function strings(flat, strlen) result(p)
    character(kind=c_char), intent(in), target :: flat(:)
    integer, intent(in) :: strlen
    character(len=strlen), pointer :: p(:)
    call c_f_pointer(c_loc(flat), p, [size(flat) / max(strlen, 1)])
  end function

  ! Moves data of memtype between the caller's array (nelem elements at data) and the whole
  ! variable, or the box start/count (Fortran order, 1-based). A box given for fewer
  ! dimensions than the variable has is its fastest ones: the others start at 1 with count 1.
  integer function var_io(ncid, varid, memtype, put, data, nelem, start, count) result(ierr)
    integer, intent(in) :: ncid, varid, memtype
    logical, intent(in) :: put
    type(c_ptr), intent(in) :: data
    integer(c_long_long), intent(in) :: nelem
    integer, intent(in), optional :: start(:), count(:)
    procedure(var_fn), pointer :: whole
    procedure(vara_fn), pointer :: box
    character(kind=c_char), allocatable, target :: pad(:)
    integer(c_long_long) :: cstart(pio_max_var_dims + 1), ccount(pio_max_var_dims + 1), want
    integer(c_int) :: ndims
    integer :: given
    call pick(memtype, put, whole, box)
    ierr = pioc_inq_varndims(int(ncid, c_int), int(varid - 1, c_int), ndims)
    if (ierr /= pio_noerr) return
    if (ndims > size(cstart)) then
      ierr = einval
      return
    end if
    if (.not. present(start)) then
      ierr = whole_elements(ncid, varid, ndims, want)
      if (ierr /= pio_noerr) return
      if (want > nelem .and. memtype == pio_char .and. put) then
        pad = nul_padded(data, nelem, want)
        ierr = whole(int(ncid, c_int), int(varid - 1, c_int), c_loc(pad))
        return
      end if
      if (want > nelem) then
        ierr = merge(pio_ests, einval, memtype == pio_char)
        return
      end if
      ierr = whole(int(ncid, c_int), int(varid - 1, c_int), data)
      return
    end if
    given = min(size(start), int(ndims))
    if (size(count) < given) then
      ierr = einval
      return
    end if
    cstart(1:ndims) = 0
    ccount(1:ndims) = 1
    cstart(ndims - given + 1:ndims) = start(given:1:-1) - 1
    ccount(ndims - given + 1:ndims) = count(given:1:-1)
    if (product(ccount(1:ndims)) > nelem) then
      ierr = einval
      return
    end if
    ierr = box(int(ncid, c_int), int(varid - 1, c_int), cstart, ccount, data)
  end function

  ! Text shorter than the variable it fills, padded with NULs (as a shorter string is).
  function nul_padded(data, n, want) result(text)
    type(c_ptr), intent(in) :: data
    integer(c_long_long), intent(in) :: n, want
    character(kind=c_char), allocatable :: text(:)
    character(kind=c_char), pointer :: given(:)
    call c_f_pointer(data, given, [n])
    allocate(text(want))
    text = c_null_char
    text(1:n) = given
  end function

  ! The number of elements of the whole variable (records so far on its unlimited dimension).
  integer function whole_elements(ncid, varid, ndims, n) result(ierr)
    integer, intent(in) :: ncid, varid
    integer(c_int), intent(in) :: ndims
    integer(c_long_long), intent(out) :: n
    integer(c_int) :: dimids(pio_max_var_dims + 1)
    integer(c_long_long) :: len
    integer :: i
    n = 1
    ierr = pioc_inq_vardimid(int(ncid, c_int), int(varid - 1, c_int), dimids)
    do i = 1, ndims
      if (ierr /= pio_noerr) return
      ierr = pioc_inq_dimlen(int(ncid, c_int), dimids(i), len)
      n = n * len
    end do
  end function

  subroutine pick(memtype, put, whole, box)
    integer, intent(in) :: memtype
    logical, intent(in) :: put
    procedure(var_fn), pointer, intent(out) :: whole
    procedure(vara_fn), pointer, intent(out) :: box
    select case (memtype)
    case (pio_char)
      whole => pioc_get_var_text
      box => pioc_get_vara_text
      if (put) whole => pioc_put_var_text
      if (put) box => pioc_put_vara_text
    case (pio_short)
      whole => pioc_get_var_short
      box => pioc_get_vara_short
      if (put) whole => pioc_put_var_short
      if (put) box => pioc_put_vara_short
    case (pio_int)
      whole => pioc_get_var_int
      box => pioc_get_vara_int
      if (put) whole => pioc_put_var_int
      if (put) box => pioc_put_vara_int
    case (pio_real)
      whole => pioc_get_var_float
      box => pioc_get_vara_float
      if (put) whole => pioc_put_var_float
      if (put) box => pioc_put_vara_float
    case default
      whole => pioc_get_var_double
      box => pioc_get_vara_double
      if (put) whole => pioc_put_var_double
      if (put) box => pioc_put_vara_double
    end select
  end subroutine
end module pio_vars
