! PIO 2.7's Fortran interface over the C library that pio.h declares (`use pio`): PIO's names,
! argument lists and conventions (1-based ids, Fortran-order dimensions), written for tapio.
! Link it with libtapio_pio, or with the real PIO's libpioc: it calls nothing else.
module pio
  use pio_kinds, only: pio_offset_kind
  use pio_types
  use pio_lib
  use pio_meta
  use pio_atts
  use pio_vars
  use pio_darrays
  use pio_support, only: pio_readdof, pio_writedof, pio_write_nc_dof, pio_read_nc_dof
  implicit none
  public
end module pio
