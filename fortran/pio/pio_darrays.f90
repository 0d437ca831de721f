! Distributed arrays: PIO_write_darray and PIO_read_darray for short, int, real and double
! arrays of any rank, each rank passing its part in the order of its compdof. The array is
! taken as one vector of size(array) elements; a write is held by the C library (until sync,
! close or its buffer limit), so the caller may reuse the array as soon as the call returns.
! fillval fills the positions of the decomposition no rank maps (holes). Given an array of
! var_desc_t, a write covers several variables of one decomposition: the array holds their parts
! one after the other, in equal lengths (each variable at its own frame).
module pio_darrays
  use, intrinsic :: iso_c_binding, only: c_int, c_short, c_float, c_double, c_long_long, c_ptr, &
                                         c_loc, c_null_ptr, c_f_pointer, c_intptr_t
  use pio_types, only: file_desc_t, var_desc_t, io_desc_t
  use pio_c, only: pioc_write_darray, pioc_read_darray
  implicit none
  private
  public :: pio_write_darray, pio_read_darray

  interface pio_write_darray
    module procedure write_darray_short, write_darray_int, write_darray_real, write_darray_double
    module procedure write_darray_multi_short, write_darray_multi_int, write_darray_multi_real, &
      write_darray_multi_double
  end interface

  ! netCDF's NC_EINVAL: an array that does not split into equal parts, one per variable.
  integer, parameter :: einval = -36
  interface pio_read_darray
    module procedure read_darray_short, read_darray_int, read_darray_real, read_darray_double
  end interface

contains
  subroutine write_darray_short(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_short), intent(in), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    integer(c_short), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array), fill)
  end subroutine
  subroutine read_darray_short(file, vardesc, iodesc, array, iostat)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_short), intent(inout), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    integer(c_short), pointer :: flat(:)
    ! Positions the decomposition leaves out (holes) read as 0, as in PIO.
    call c_f_pointer(c_loc(array), flat, [size(array)])
    flat = 0
    iostat = read_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array))
  end subroutine

  subroutine write_darray_int(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_int), intent(in), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    integer(c_int), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array), fill)
  end subroutine
  subroutine read_darray_int(file, vardesc, iodesc, array, iostat)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_int), intent(inout), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    integer(c_int), pointer :: flat(:)
    ! Positions the decomposition leaves out (holes) read as 0, as in PIO.
    call c_f_pointer(c_loc(array), flat, [size(array)])
    flat = 0
    iostat = read_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array))
  end subroutine

  subroutine write_darray_real(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    real(c_float), intent(in), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    real(c_float), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array), fill)
  end subroutine
  subroutine read_darray_real(file, vardesc, iodesc, array, iostat)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    real(c_float), intent(inout), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    real(c_float), pointer :: flat(:)
    ! Positions the decomposition leaves out (holes) read as 0, as in PIO.
    call c_f_pointer(c_loc(array), flat, [size(array)])
    flat = 0
    iostat = read_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array))
  end subroutine

  subroutine write_darray_double(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    real(c_double), intent(in), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    real(c_double), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array), fill)
  end subroutine
  subroutine read_darray_double(file, vardesc, iodesc, array, iostat)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc
    type(io_desc_t), intent(inout) :: iodesc
    real(c_double), intent(inout), contiguous, target :: array(..)
    integer, intent(out) :: iostat
    real(c_double), pointer :: flat(:)
    ! Positions the decomposition leaves out (holes) read as 0, as in PIO.
    call c_f_pointer(c_loc(array), flat, [size(array)])
    flat = 0
    iostat = read_darray(file, vardesc, iodesc, size(array, kind=c_long_long), c_loc(array))
  end subroutine

  subroutine write_darray_multi_short(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_short), intent(in), contiguous, target :: array(:)
    integer, intent(out) :: iostat
    integer(c_short), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_parts(file, vardesc, iodesc, size(array, kind=c_long_long), &
                         storage_size(array) / 8, c_loc(array), fill)
  end subroutine
  subroutine write_darray_multi_int(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_int), intent(in), contiguous, target :: array(:)
    integer, intent(out) :: iostat
    integer(c_int), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_parts(file, vardesc, iodesc, size(array, kind=c_long_long), &
                         storage_size(array) / 8, c_loc(array), fill)
  end subroutine
  subroutine write_darray_multi_real(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc(:)
    type(io_desc_t), intent(inout) :: iodesc
    real(c_float), intent(in), contiguous, target :: array(:)
    integer, intent(out) :: iostat
    real(c_float), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_parts(file, vardesc, iodesc, size(array, kind=c_long_long), &
                         storage_size(array) / 8, c_loc(array), fill)
  end subroutine
  subroutine write_darray_multi_double(file, vardesc, iodesc, array, iostat, fillval)
    type(file_desc_t), intent(inout) :: file
    type(var_desc_t), intent(inout) :: vardesc(:)
    type(io_desc_t), intent(inout) :: iodesc
    real(c_double), intent(in), contiguous, target :: array(:)
    integer, intent(out) :: iostat
    real(c_double), intent(in), optional, target :: fillval
    type(c_ptr) :: fill
    fill = c_null_ptr
    if (present(fillval)) fill = c_loc(fillval)
    iostat = write_parts(file, vardesc, iodesc, size(array, kind=c_long_long), &
                         storage_size(array) / 8, c_loc(array), fill)
  end subroutine
  ! Each variable's part of array (total elements of elsize bytes at array), in turn.
  integer function write_parts(file, vardesc, iodesc, total, elsize, array, fill) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc(:)
    type(io_desc_t), intent(in) :: iodesc
    integer(c_long_long), intent(in) :: total
    integer, intent(in) :: elsize
    type(c_ptr), intent(in) :: array, fill
    integer(c_long_long) :: n
    integer(c_intptr_t) :: base
    integer :: i
    ierr = einval
    if (size(vardesc) == 0) return
    if (mod(total, int(size(vardesc), c_long_long)) /= 0) return
    n = total / size(vardesc)
    base = transfer(array, base)
    do i = 1, size(vardesc)
      ierr = write_darray(file, vardesc(i), iodesc, n, &
                          transfer(base + (i - 1) * n * elsize, array), fill)
      if (ierr /= 0) return
    end do
  end function
  integer function write_darray(file, vardesc, iodesc, arraylen, array, fill) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    type(io_desc_t), intent(in) :: iodesc
    integer(c_long_long), intent(in) :: arraylen
    type(c_ptr), intent(in) :: array, fill
    ierr = pioc_write_darray(file%fh, vardesc%varid - 1, iodesc%ioid, arraylen, array, fill)
  end function
  integer function read_darray(file, vardesc, iodesc, arraylen, array) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    type(io_desc_t), intent(in) :: iodesc
    integer(c_long_long), intent(in) :: arraylen
    type(c_ptr), intent(in) :: array
    ierr = pioc_read_darray(file%fh, vardesc%varid - 1, iodesc%ioid, arraylen, array)
  end function
end module pio_darrays
