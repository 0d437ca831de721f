! The handles and constants of PIO's Fortran interface. The values are those of PIO 2.7's pio.h
! (netCDF's where PIO takes netCDF's), since the handles and flags go unchanged to the C library.
! Ids kept here are the C library's, except var_desc_t%varid: Fortran varids, dimids and attnums
! are 1-based, as in netCDF-Fortran, and the module subtracts 1 on the way to C.
module pio_types
  use, intrinsic :: iso_c_binding, only: c_int, c_bool
  implicit none
  private

  type, public :: iosystem_desc_t
    integer(c_int) :: iosysid = -1
    integer :: comp_comm = -1  ! PIO_init's (Fortran handle): PIO_read_nc_dof reads on it
  end type
  type, public :: file_desc_t
    integer(c_int) :: fh = -1
    type(iosystem_desc_t), pointer :: iosystem => null()
  end type
  type, public :: io_desc_t
    integer(c_int) :: ioid = -1
  end type
  type, public :: var_desc_t
    integer(c_int) :: varid = -1
    integer(c_int) :: ncid = -1
  end type

  ! Rearranger options, laid out as the C struct rearr_opt_t they are passed as.
  type, bind(c), public :: pio_rearr_comm_fc_opt_t
    logical(c_bool) :: enable_hs
    logical(c_bool) :: enable_isend
    integer(c_int) :: max_pend_req
  end type
  type, bind(c), public :: pio_rearr_opt_t
    integer(c_int) :: comm_type
    integer(c_int) :: fcd
    type(pio_rearr_comm_fc_opt_t) :: comm_fc_opts_comp2io
    type(pio_rearr_comm_fc_opt_t) :: comm_fc_opts_io2comp
  end type

  integer, parameter, public :: pio_iotype_pnetcdf = 1, pio_iotype_netcdf = 2, &
    pio_iotype_netcdf4c = 3, pio_iotype_netcdf4p = 4
  integer, parameter, public :: iotype_pnetcdf = pio_iotype_pnetcdf, &
    iotype_netcdf = pio_iotype_netcdf
  integer, parameter, public :: pio_rearr_box = 1, pio_rearr_subset = 2
  integer, parameter, public :: pio_rearr_comm_p2p = 0, pio_rearr_comm_coll = 1
  integer, parameter, public :: pio_rearr_comm_fc_2d_enable = 0, &
    pio_rearr_comm_fc_1d_comp2io = 1, pio_rearr_comm_fc_1d_io2comp = 2, &
    pio_rearr_comm_fc_2d_disable = 3
  integer, parameter, public :: pio_rearr_comm_unlimited_pend_req = -1
  integer, parameter, public :: pio_internal_error = -51, pio_bcast_error = -52, &
    pio_return_error = -53, pio_default = -1
  integer, parameter, public :: pio_noerr = 0
  ! netCDF external types.
  integer, parameter, public :: pio_char = 2, pio_short = 3, pio_int = 4, pio_real = 5, &
    pio_double = 6
  ! Modes: open, create, fill and format.
  integer, parameter, public :: pio_nowrite = 0, pio_write = 1, pio_clobber = 0, &
    pio_noclobber = 4, pio_fill = 0, pio_nofill = 256, pio_64bit_offset = 512, &
    pio_64bit_data = 32
  integer, parameter, public :: pio_global = 0, pio_unlimited = 0
  integer, parameter, public :: pio_max_name = 256, pio_max_var_dims = 6, pio_num_ost = 16
  ! netCDF's default fill values.
  integer, parameter, public :: pio_fill_int = -2147483647
  real, parameter, public :: pio_fill_float = 9.9692099683868690e+36
  double precision, parameter, public :: pio_fill_double = 9.9692099683868690d+36
end module pio_types
