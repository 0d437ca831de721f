! Attributes: PIO_put_att and PIO_get_att for text, short, int, real and double, scalars or
! arrays, by raw ncid, by file and varid, or by file and var_desc_t (varid PIO_GLOBAL = 0 for
! the file's own); and PIO_inq_var_fill. Text goes without its trailing blanks, and comes back
! blank-padded from the first NUL on.
module pio_atts
  use, intrinsic :: iso_c_binding, only: c_int, c_short, c_float, c_double, c_char, c_long_long, &
                                         c_ptr, c_loc, c_f_pointer
  use pio_kinds, only: pio_offset_kind
  use pio_types, only: file_desc_t, var_desc_t, pio_noerr, pio_char, pio_short, pio_int, &
                       pio_real, pio_double
  use pio_c
  use pio_strings, only: c_str, c_text, blank_after_nul, pio_ests
  implicit none
  private
  public :: pio_put_att, pio_get_att, pio_inq_var_fill

  ! netCDF's NC_EINVAL: the array is too short for the attribute.
  integer, parameter :: einval = -36

  interface pio_put_att
    module procedure put_att_id_text, put_att_vid_text, put_att_desc_text, &
      put_att_id_short, put_att_vid_short, put_att_desc_short, &
      put_att_id_int, put_att_vid_int, put_att_desc_int, &
      put_att_id_real, put_att_vid_real, put_att_desc_real, &
      put_att_id_double, put_att_vid_double, put_att_desc_double
  end interface
  interface pio_get_att
    module procedure get_att_id_text, get_att_vid_text, get_att_desc_text, &
      get_att_id_short, get_att_vid_short, get_att_desc_short, &
      get_att_id_int, get_att_vid_int, get_att_desc_int, &
      get_att_id_real, get_att_vid_real, get_att_desc_real, &
      get_att_id_double, get_att_vid_double, get_att_desc_double
  end interface
  interface pio_inq_var_fill
    module procedure inq_var_fill_short, inq_var_fill_int, inq_var_fill_real, inq_var_fill_double
  end interface

contains
  ! ---- the typed entries: each names its C function and netCDF type, the rest is shared ----
  integer function put_att_id_text(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    character(len=*), intent(in), contiguous, target :: values(..)
    character(kind=c_char), pointer :: flat(:)
    character(kind=c_char), allocatable, target :: text(:)
    integer(c_long_long) :: n
    call c_f_pointer(c_loc(values), flat, [len(values) * size(values)])
    allocate(text(size(flat)))
    text = c_text(flat, len(values))
    ! A scalar goes as its trimmed length, an array as all its (NUL-padded) strings.
    n = size(text)
    if (rank(values) == 0) n = len_trim(flat_string(flat))
    ierr = pioc_put_att_text(int(ncid, c_int), int(varid - 1, c_int), c_str(name), n, &
                             c_loc(text))
  end function
  integer function put_att_id_short(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer(c_short), intent(in), contiguous, target :: values(..)
    ierr = pioc_put_att_short(int(ncid, c_int), int(varid - 1, c_int), c_str(name), pio_short, &
                              size(values, kind=c_long_long), c_loc(values))
  end function
  integer function put_att_id_int(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer(c_int), intent(in), contiguous, target :: values(..)
    ierr = pioc_put_att_int(int(ncid, c_int), int(varid - 1, c_int), c_str(name), pio_int, &
                            size(values, kind=c_long_long), c_loc(values))
  end function
  integer function put_att_id_real(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    real(c_float), intent(in), contiguous, target :: values(..)
    ierr = pioc_put_att_float(int(ncid, c_int), int(varid - 1, c_int), c_str(name), pio_real, &
                              size(values, kind=c_long_long), c_loc(values))
  end function
  integer function put_att_id_double(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    real(c_double), intent(in), contiguous, target :: values(..)
    ierr = pioc_put_att_double(int(ncid, c_int), int(varid - 1, c_int), c_str(name), &
                               pio_double, size(values, kind=c_long_long), c_loc(values))
  end function

  integer function get_att_id_text(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    character(len=*), intent(inout), contiguous, target :: values(..)
    character(kind=c_char), pointer :: flat(:)
    character(kind=c_char), allocatable, target :: text(:)
    character(len=len(values)), pointer :: each(:)
    integer(pio_offset_kind) :: n
    call c_f_pointer(c_loc(values), flat, [len(values) * size(values)])
    ierr = checked_len(ncid, varid, name, size(flat), n)
    if (ierr /= pio_noerr) return
    allocate(text(max(n, 1_pio_offset_kind)))
    ierr = pioc_get_att_text(int(ncid, c_int), int(varid - 1, c_int), c_str(name), c_loc(text))
    if (ierr /= pio_noerr) return
    flat = ' '
    flat(1:n) = text(1:n)
    each => values_as_strings(flat, len(values))
    call blank_after_nul(each)
  end function
  integer function get_att_id_short(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer(c_short), intent(inout), contiguous, target :: values(..)
    integer(pio_offset_kind) :: n
    ierr = checked_len(ncid, varid, name, size(values), n)
    if (ierr == pio_noerr) ierr = pioc_get_att_short(int(ncid, c_int), int(varid - 1, c_int), &
                                                     c_str(name), c_loc(values))
  end function
  integer function get_att_id_int(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer(c_int), intent(inout), contiguous, target :: values(..)
    integer(pio_offset_kind) :: n
    ierr = checked_len(ncid, varid, name, size(values), n)
    if (ierr == pio_noerr) ierr = pioc_get_att_int(int(ncid, c_int), int(varid - 1, c_int), &
                                                   c_str(name), c_loc(values))
  end function
  integer function get_att_id_real(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    real(c_float), intent(inout), contiguous, target :: values(..)
    integer(pio_offset_kind) :: n
    ierr = checked_len(ncid, varid, name, size(values), n)
    if (ierr == pio_noerr) ierr = pioc_get_att_float(int(ncid, c_int), int(varid - 1, c_int), &
                                                     c_str(name), c_loc(values))
  end function
  integer function get_att_id_double(ncid, varid, name, values) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    real(c_double), intent(inout), contiguous, target :: values(..)
    integer(pio_offset_kind) :: n
    ierr = checked_len(ncid, varid, name, size(values), n)
    if (ierr == pio_noerr) ierr = pioc_get_att_double(int(ncid, c_int), int(varid - 1, c_int), &
                                                      c_str(name), c_loc(values))
  end function

  ! The attribute's length n, or an error where the caller's room (elements) cannot hold it:
  ! PIO_ESTS for text, PIO_EINVAL for numbers; C would otherwise write past the array.
  integer function checked_len(ncid, varid, name, room, n) result(ierr)
    integer, intent(in) :: ncid, varid, room
    character(len=*), intent(in) :: name
    integer(pio_offset_kind), intent(out) :: n
    integer(c_int) :: xtype
    ierr = pioc_inq_att(int(ncid, c_int), int(varid - 1, c_int), c_str(name), xtype, n)
    if (ierr /= pio_noerr) return
    if (n > room) ierr = merge(pio_ests, einval, xtype == pio_char)
  end function

  ! ---- the same by file and varid, or by file and var_desc_t ----
  integer function put_att_vid_text(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    character(len=*), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_text(file%fh, varid, name, values)
  end function
  integer function put_att_desc_text(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    character(len=*), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_text(file%fh, vardesc%varid, name, values)
  end function
  integer function put_att_vid_short(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer(c_short), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_short(file%fh, varid, name, values)
  end function
  integer function put_att_desc_short(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer(c_short), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_short(file%fh, vardesc%varid, name, values)
  end function
  integer function put_att_vid_int(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer(c_int), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_int(file%fh, varid, name, values)
  end function
  integer function put_att_desc_int(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer(c_int), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_int(file%fh, vardesc%varid, name, values)
  end function
  integer function put_att_vid_real(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    real(c_float), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_real(file%fh, varid, name, values)
  end function
  integer function put_att_desc_real(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    real(c_float), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_real(file%fh, vardesc%varid, name, values)
  end function
  integer function put_att_vid_double(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    real(c_double), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_double(file%fh, varid, name, values)
  end function
  integer function put_att_desc_double(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    real(c_double), intent(in), contiguous, target :: values(..)
    ierr = put_att_id_double(file%fh, vardesc%varid, name, values)
  end function

  integer function get_att_vid_text(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    character(len=*), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_text(file%fh, varid, name, values)
  end function
  integer function get_att_desc_text(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    character(len=*), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_text(file%fh, vardesc%varid, name, values)
  end function
  integer function get_att_vid_short(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer(c_short), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_short(file%fh, varid, name, values)
  end function
  integer function get_att_desc_short(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer(c_short), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_short(file%fh, vardesc%varid, name, values)
  end function
  integer function get_att_vid_int(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer(c_int), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_int(file%fh, varid, name, values)
  end function
  integer function get_att_desc_int(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer(c_int), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_int(file%fh, vardesc%varid, name, values)
  end function
  integer function get_att_vid_real(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    real(c_float), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_real(file%fh, varid, name, values)
  end function
  integer function get_att_desc_real(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    real(c_float), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_real(file%fh, vardesc%varid, name, values)
  end function
  integer function get_att_vid_double(file, varid, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    real(c_double), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_double(file%fh, varid, name, values)
  end function
  integer function get_att_desc_double(file, vardesc, name, values) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    real(c_double), intent(inout), contiguous, target :: values(..)
    ierr = get_att_id_double(file%fh, vardesc%varid, name, values)
  end function

  ! ---- the variable's fill setting: no_fill is 1 when filling is off ----
  integer function inq_var_fill_short(file, vdesc, no_fill, fillvalue) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vdesc
    integer, intent(out) :: no_fill
    integer(c_short), intent(out), target :: fillvalue
    ierr = var_fill(file, vdesc, no_fill, c_loc(fillvalue))
  end function
  integer function inq_var_fill_int(file, vdesc, no_fill, fillvalue) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vdesc
    integer, intent(out) :: no_fill
    integer(c_int), intent(out), target :: fillvalue
    ierr = var_fill(file, vdesc, no_fill, c_loc(fillvalue))
  end function
  integer function inq_var_fill_real(file, vdesc, no_fill, fillvalue) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vdesc
    integer, intent(out) :: no_fill
    real(c_float), intent(out), target :: fillvalue
    ierr = var_fill(file, vdesc, no_fill, c_loc(fillvalue))
  end function
  integer function inq_var_fill_double(file, vdesc, no_fill, fillvalue) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vdesc
    integer, intent(out) :: no_fill
    real(c_double), intent(out), target :: fillvalue
    ierr = var_fill(file, vdesc, no_fill, c_loc(fillvalue))
  end function
  integer function var_fill(file, vdesc, no_fill, fillvalue) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vdesc
    integer, intent(out) :: no_fill
    type(c_ptr), intent(in) :: fillvalue
    integer(c_int) :: off
    ierr = pioc_inq_var_fill(file%fh, vdesc%varid - 1, off, fillvalue)
    no_fill = off
  end function

  ! ---- views of character data ----
  function flat_string(flat) result(s)
    character(kind=c_char), intent(in) :: flat(:)
    character(len=size(flat)) :: s
    s = transfer(flat, s)
  end function
  function values_as_strings(flat, strlen) result(p)
    character(kind=c_char), intent(in), target :: flat(:)
    integer, intent(in) :: strlen
    character(len=strlen), pointer :: p(:)
    call c_f_pointer(c_loc(flat), p, [size(flat) / max(strlen, 1)])
  end function
end module pio_atts
