! Strings between Fortran and the C library: names go to C trimmed and NUL-terminated, and come
! back from a C buffer blank-padded, with PIO_ESTS (netCDF's "string too short") rather than a
! silent cut when the caller's variable is shorter than the name.
module pio_strings
  use, intrinsic :: iso_c_binding, only: c_char, c_null_char, c_int
  implicit none
  private
  public :: c_str, from_c, blank_after_nul, c_text
  ! netCDF's NC_ESTS: in Fortran, string too short.
  integer(c_int), parameter, public :: pio_ests = -31
contains
  pure function c_str(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function

  ! The text of buf up to its first NUL into out; status is PIO_ESTS if it does not fit.
  integer function from_c(buf, out) result(status)
    character(kind=c_char, len=*), intent(in) :: buf
    character(len=*), intent(out) :: out
    integer :: n
    n = index(buf, c_null_char) - 1
    if (n < 0) n = len(buf)
    status = 0
    if (n > len(out)) status = pio_ests
    out = buf(1:min(n, len(out)))
  end function

  ! Fortran strings of length strlen, back to back in text, as netCDF stores text: the trailing
  ! blanks of each string become NULs (the first character stays, so a blank string is one
  ! blank), as PIO's put_var and put_att do.
  function c_text(text, strlen) result(c)
    character(kind=c_char), intent(in) :: text(:)
    integer, intent(in) :: strlen
    character(kind=c_char) :: c(size(text))
    integer :: first, last
    c = c_null_char
    do first = 1, size(text), max(strlen, 1)
      last = first + strlen - 1
      do while (last > first .and. text(last) == ' ')
        last = last - 1
      end do
      if (strlen > 0) c(first:last) = text(first:last)
    end do
  end function

  ! C strings read into a Fortran string end at their NUL: blank it and all after it.
  elemental subroutine blank_after_nul(s)
    character(len=*), intent(inout) :: s
    integer :: n
    n = index(s, c_null_char)
    if (n > 0) s(n:) = ' '
  end subroutine
end module pio_strings
