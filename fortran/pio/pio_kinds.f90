! Kinds of the PIO Fortran interface. PIO_OFFSET_KIND is the kind of PIO_Offset (MPI_Offset, a C
! long long): compmaps, dimension lengths and frames are passed to the C library at this kind.
module pio_kinds
  use, intrinsic :: iso_c_binding, only: c_long_long
  implicit none
  private
  integer, parameter, public :: i2 = selected_int_kind(4), i4 = selected_int_kind(6), &
    i8 = selected_int_kind(13), r4 = selected_real_kind(6), r8 = selected_real_kind(13)
  integer, parameter, public :: pio_offset_kind = c_long_long
end module pio_kinds
