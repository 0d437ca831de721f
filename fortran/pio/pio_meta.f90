! Define mode and inquiries: dimensions, variables, attribute lookups, fill mode, error text.
! Each call comes in PIO's forms: by file_desc_t or raw ncid, by var_desc_t or 1-based varid.
! Dimension ids, variable ids and attribute numbers are 1-based here and 0-based in C; dimension
! lists are reversed between Fortran order (fastest first) and C order.
module pio_meta
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_char
  use pio_kinds, only: pio_offset_kind
  use pio_types, only: file_desc_t, var_desc_t, iosystem_desc_t, pio_noerr, pio_max_name, &
                       pio_max_var_dims
  use pio_c
  use pio_strings, only: c_str, from_c
  implicit none
  private
  public :: pio_def_dim, pio_inq_dimid, pio_inq_dimname, pio_inq_dimlen, pio_inq_unlimdim, &
    pio_inquire, pio_inquire_dimension, pio_def_var, pio_inq_varid, pio_inq_varname, &
    pio_inq_vartype, pio_inq_varndims, pio_inq_vardimid, pio_inq_varnatts, &
    pio_inquire_variable, pio_inq_att, pio_inq_attlen, pio_inq_attname, pio_enddef, pio_redef, &
    pio_set_fill, pio_set_log_level, pio_strerror

  ! netCDF's NC_EINVAL: an argument array too short for the answer.
  integer, parameter :: einval = -36

  interface pio_def_dim
    module procedure def_dim_desc, def_dim_id, def_dim_int_desc, def_dim_int_id
  end interface
  interface pio_inq_dimid
    module procedure inq_dimid_desc, inq_dimid_id
  end interface
  interface pio_inq_dimname
    module procedure inq_dimname_desc, inq_dimname_id
  end interface
  interface pio_inq_dimlen
    module procedure inq_dimlen_desc, inq_dimlen_id, inq_dimlen_desc_long, inq_dimlen_id_long
  end interface
  interface pio_inq_unlimdim
    module procedure inq_unlimdim_desc, inq_unlimdim_id
  end interface
  interface pio_inquire
    module procedure inquire_desc, inquire_id
  end interface
  interface pio_inquire_dimension
    module procedure inquire_dimension_desc, inquire_dimension_id
  end interface
  interface pio_def_var
    module procedure def_var_0d_desc, def_var_md_desc, def_var_0d_id, def_var_md_id
  end interface
  interface pio_inq_varid
    module procedure inq_varid_desc, inq_varid_vid, inq_varid_id
  end interface
  interface pio_inq_varname
    module procedure inq_varname_desc, inq_varname_vid, inq_varname_id
  end interface
  interface pio_inq_vartype
    module procedure inq_vartype_desc, inq_vartype_vid, inq_vartype_id
  end interface
  interface pio_inq_varndims
    module procedure inq_varndims_desc, inq_varndims_vid, inq_varndims_id
  end interface
  interface pio_inq_vardimid
    module procedure inq_vardimid_desc, inq_vardimid_vid, inq_vardimid_id
  end interface
  interface pio_inq_varnatts
    module procedure inq_varnatts_desc, inq_varnatts_vid, inq_varnatts_id
  end interface
  interface pio_inquire_variable
    module procedure inquire_variable_desc, inquire_variable_vid, inquire_variable_id
  end interface
  interface pio_inq_att
    module procedure inq_att_desc, inq_att_vid, inq_att_id
  end interface
  interface pio_inq_attlen
    module procedure inq_attlen_desc, inq_attlen_vid, inq_attlen_id
  end interface
  interface pio_inq_attname
    module procedure inq_attname_desc, inq_attname_vid, inq_attname_id
  end interface
  interface pio_enddef
    module procedure enddef_desc, enddef_id
  end interface
  interface pio_redef
    module procedure redef_desc, redef_id
  end interface
  interface pio_set_fill
    module procedure set_fill_desc, set_fill_id
  end interface
  interface pio_set_log_level
    module procedure set_log_level
  end interface
  interface pio_strerror
    module procedure strerror
  end interface

contains
  ! ---- dimensions ----
  integer function def_dim_id(ncid, name, len, dimid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer(pio_offset_kind), intent(in) :: len
    integer, intent(out) :: dimid
    integer(c_int) :: cid
    ierr = pioc_def_dim(int(ncid, c_int), c_str(name), len, cid)
    dimid = merge(cid + 1, -1, ierr == pio_noerr)
  end function
  integer function def_dim_desc(file, name, len, dimid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer(pio_offset_kind), intent(in) :: len
    integer, intent(out) :: dimid
    ierr = def_dim_id(file%fh, name, len, dimid)
  end function
  integer function def_dim_int_id(ncid, name, len, dimid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(in) :: len
    integer, intent(out) :: dimid
    ierr = def_dim_id(ncid, name, int(len, pio_offset_kind), dimid)
  end function
  integer function def_dim_int_desc(file, name, len, dimid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: len
    integer, intent(out) :: dimid
    ierr = def_dim_id(file%fh, name, int(len, pio_offset_kind), dimid)
  end function

  integer function inq_dimid_id(ncid, name, dimid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(out) :: dimid
    integer(c_int) :: cid
    ierr = pioc_inq_dimid(int(ncid, c_int), c_str(name), cid)
    dimid = merge(cid + 1, -1, ierr == pio_noerr)
  end function
  integer function inq_dimid_desc(file, name, dimid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(out) :: dimid
    ierr = inq_dimid_id(file%fh, name, dimid)
  end function

  integer function inq_dimname_id(ncid, dimid, name) result(ierr)
    integer, intent(in) :: ncid, dimid
    character(len=*), intent(out) :: name
    character(kind=c_char, len=pio_max_name + 1) :: buf
    buf = ''
    ierr = pioc_inq_dimname(int(ncid, c_int), int(dimid - 1, c_int), buf)
    name = ''
    if (ierr == pio_noerr) ierr = from_c(buf, name)
  end function
  integer function inq_dimname_desc(file, dimid, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    character(len=*), intent(out) :: name
    ierr = inq_dimname_id(file%fh, dimid, name)
  end function

  integer function inq_dimlen_id_long(ncid, dimid, len) result(ierr)
    integer, intent(in) :: ncid, dimid
    integer(pio_offset_kind), intent(out) :: len
    ierr = pioc_inq_dimlen(int(ncid, c_int), int(dimid - 1, c_int), len)
  end function
  integer function inq_dimlen_desc_long(file, dimid, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    integer(pio_offset_kind), intent(out) :: len
    ierr = inq_dimlen_id_long(file%fh, dimid, len)
  end function
  integer function inq_dimlen_id(ncid, dimid, len) result(ierr)
    integer, intent(in) :: ncid, dimid
    integer, intent(out) :: len
    integer(pio_offset_kind) :: long
    ierr = inq_dimlen_id_long(ncid, dimid, long)
    len = int(long)
  end function
  integer function inq_dimlen_desc(file, dimid, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    integer, intent(out) :: len
    ierr = inq_dimlen_id(file%fh, dimid, len)
  end function

  ! The unlimited dimension's id, or -1 when the file has none.
  integer function inq_unlimdim_id(ncid, unlimdim) result(ierr)
    integer, intent(in) :: ncid
    integer, intent(out) :: unlimdim
    integer(c_int) :: cid
    ierr = pioc_inq_unlimdim(int(ncid, c_int), cid)
    unlimdim = merge(cid + 1, cid, cid >= 0)
  end function
  integer function inq_unlimdim_desc(file, unlimdim) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(out) :: unlimdim
    ierr = inq_unlimdim_id(file%fh, unlimdim)
  end function

  integer function inquire_id(ncid, ndimensions, nvariables, nattributes, unlimiteddimid) &
      result(ierr)
    integer, intent(in) :: ncid
    integer, intent(out), optional :: ndimensions, nvariables, nattributes, unlimiteddimid
    integer(c_int) :: n
    ierr = pio_noerr
    if (present(ndimensions)) then
      ierr = pioc_inq_ndims(int(ncid, c_int), n)
      ndimensions = n
    end if
    if (present(nvariables) .and. ierr == pio_noerr) then
      ierr = pioc_inq_nvars(int(ncid, c_int), n)
      nvariables = n
    end if
    if (present(nattributes) .and. ierr == pio_noerr) then
      ierr = pioc_inq_natts(int(ncid, c_int), n)
      nattributes = n
    end if
    if (present(unlimiteddimid) .and. ierr == pio_noerr) &
      ierr = inq_unlimdim_id(ncid, unlimiteddimid)
  end function
  integer function inquire_desc(file, ndimensions, nvariables, nattributes, unlimiteddimid) &
      result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(out), optional :: ndimensions, nvariables, nattributes, unlimiteddimid
    ierr = inquire_id(file%fh, ndimensions, nvariables, nattributes, unlimiteddimid)
  end function

  integer function inquire_dimension_id(ncid, dimid, name, len) result(ierr)
    integer, intent(in) :: ncid, dimid
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: len
    ierr = pio_noerr
    if (present(name)) ierr = inq_dimname_id(ncid, dimid, name)
    if (present(len) .and. ierr == pio_noerr) ierr = inq_dimlen_id(ncid, dimid, len)
  end function
  integer function inquire_dimension_desc(file, dimid, name, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: dimid
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: len
    ierr = inquire_dimension_id(file%fh, dimid, name, len)
  end function

  ! ---- variables ----
  ! dimids in Fortran order (fastest first), the unlimited dimension last.
  integer function def_var_md_id(ncid, name, type, dimids, varid) result(ierr)
    integer, intent(in) :: ncid, type
    character(len=*), intent(in) :: name
    integer, intent(in) :: dimids(:)
    integer, intent(out) :: varid
    integer(c_int) :: cdimids(max(size(dimids), 1)), cid
    integer :: n
    n = size(dimids)
    cdimids(1:n) = int(dimids(n:1:-1) - 1, c_int)
    ierr = pioc_def_var(int(ncid, c_int), c_str(name), int(type, c_int), int(n, c_int), &
                        cdimids, cid)
    varid = merge(cid + 1, -1, ierr == pio_noerr)
  end function
  integer function def_var_md_desc(file, name, type, dimids, vardesc) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: type
    integer, intent(in) :: dimids(:)
    type(var_desc_t), intent(inout) :: vardesc
    ierr = def_var_md_id(file%fh, name, type, dimids, vardesc%varid)
    vardesc%ncid = file%fh
  end function
  integer function def_var_0d_id(ncid, name, type, varid) result(ierr)
    integer, intent(in) :: ncid, type
    character(len=*), intent(in) :: name
    integer, intent(out) :: varid
    integer :: none(0)
    ierr = def_var_md_id(ncid, name, type, none, varid)
  end function
  integer function def_var_0d_desc(file, name, type, vardesc) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(in) :: type
    type(var_desc_t), intent(inout) :: vardesc
    integer :: none(0)
    ierr = def_var_md_desc(file, name, type, none, vardesc)
  end function

  ! On failure the varid is left as it was, as in PIO.
  integer function inq_varid_id(ncid, name, varid) result(ierr)
    integer, intent(in) :: ncid
    character(len=*), intent(in) :: name
    integer, intent(inout) :: varid
    integer(c_int) :: cid
    ierr = pioc_inq_varid(int(ncid, c_int), c_str(name), cid)
    if (ierr == pio_noerr) varid = cid + 1
  end function
  integer function inq_varid_vid(file, name, varid) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    integer, intent(inout) :: varid
    ierr = inq_varid_id(file%fh, name, varid)
  end function
  integer function inq_varid_desc(file, name, vardesc) result(ierr)
    type(file_desc_t), intent(in) :: file
    character(len=*), intent(in) :: name
    type(var_desc_t), intent(inout) :: vardesc
    ierr = inq_varid_id(file%fh, name, vardesc%varid)
    if (ierr == pio_noerr) vardesc%ncid = file%fh
  end function

  integer function inq_varname_id(ncid, varid, name) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(out) :: name
    character(kind=c_char, len=pio_max_name + 1) :: buf
    buf = ''
    ierr = pioc_inq_varname(int(ncid, c_int), int(varid - 1, c_int), buf)
    name = ''
    if (ierr == pio_noerr) ierr = from_c(buf, name)
  end function
  integer function inq_varname_vid(file, varid, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(out) :: name
    ierr = inq_varname_id(file%fh, varid, name)
  end function
  integer function inq_varname_desc(file, vardesc, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(out) :: name
    ierr = inq_varname_id(file%fh, vardesc%varid, name)
  end function

  integer function inq_vartype_id(ncid, varid, type) result(ierr)
    integer, intent(in) :: ncid, varid
    integer, intent(out) :: type
    integer(c_int) :: t
    ierr = pioc_inq_vartype(int(ncid, c_int), int(varid - 1, c_int), t)
    type = t
  end function
  integer function inq_vartype_vid(file, varid, type) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: type
    ierr = inq_vartype_id(file%fh, varid, type)
  end function
  integer function inq_vartype_desc(file, vardesc, type) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: type
    ierr = inq_vartype_id(file%fh, vardesc%varid, type)
  end function

  integer function inq_varndims_id(ncid, varid, ndims) result(ierr)
    integer, intent(in) :: ncid, varid
    integer, intent(out) :: ndims
    integer(c_int) :: n
    ierr = pioc_inq_varndims(int(ncid, c_int), int(varid - 1, c_int), n)
    ndims = n
  end function
  integer function inq_varndims_vid(file, varid, ndims) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: ndims
    ierr = inq_varndims_id(file%fh, varid, ndims)
  end function
  integer function inq_varndims_desc(file, vardesc, ndims) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: ndims
    ierr = inq_varndims_id(file%fh, vardesc%varid, ndims)
  end function

  ! dimids in Fortran order; PIO_EINVAL if dimids is shorter than the variable's rank.
  integer function inq_vardimid_id(ncid, varid, dimids) result(ierr)
    integer, intent(in) :: ncid, varid
    integer, intent(out) :: dimids(:)
    integer(c_int) :: cdimids(pio_max_var_dims + 1)
    integer :: ndims
    ierr = inq_varndims_id(ncid, varid, ndims)
    if (ierr /= pio_noerr) return
    if (ndims > size(dimids) .or. ndims > size(cdimids)) then
      ierr = einval
      return
    end if
    ierr = pioc_inq_vardimid(int(ncid, c_int), int(varid - 1, c_int), cdimids)
    if (ierr == pio_noerr) dimids(1:ndims) = cdimids(ndims:1:-1) + 1
  end function
  integer function inq_vardimid_vid(file, varid, dimids) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: dimids(:)
    ierr = inq_vardimid_id(file%fh, varid, dimids)
  end function
  integer function inq_vardimid_desc(file, vardesc, dimids) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: dimids(:)
    ierr = inq_vardimid_id(file%fh, vardesc%varid, dimids)
  end function

  integer function inq_varnatts_id(ncid, varid, natts) result(ierr)
    integer, intent(in) :: ncid, varid
    integer, intent(out) :: natts
    integer(c_int) :: n
    ierr = pioc_inq_varnatts(int(ncid, c_int), int(varid - 1, c_int), n)
    natts = n
  end function
  integer function inq_varnatts_vid(file, varid, natts) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    integer, intent(out) :: natts
    ierr = inq_varnatts_id(file%fh, varid, natts)
  end function
  integer function inq_varnatts_desc(file, vardesc, natts) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    integer, intent(out) :: natts
    ierr = inq_varnatts_id(file%fh, vardesc%varid, natts)
  end function

  integer function inquire_variable_id(ncid, varid, name, xtype, ndims, dimids, natts) &
      result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: xtype, ndims, natts
    integer, intent(out), optional :: dimids(:)
    ierr = pio_noerr
    if (present(name)) ierr = inq_varname_id(ncid, varid, name)
    if (present(ndims) .and. ierr == pio_noerr) ierr = inq_varndims_id(ncid, varid, ndims)
    if (present(dimids) .and. ierr == pio_noerr) ierr = inq_vardimid_id(ncid, varid, dimids)
    if (present(natts) .and. ierr == pio_noerr) ierr = inq_varnatts_id(ncid, varid, natts)
    if (present(xtype) .and. ierr == pio_noerr) ierr = inq_vartype_id(ncid, varid, xtype)
  end function
  integer function inquire_variable_vid(file, varid, name, xtype, ndims, dimids, natts) &
      result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: xtype, ndims, natts
    integer, intent(out), optional :: dimids(:)
    ierr = inquire_variable_id(file%fh, varid, name, xtype, ndims, dimids, natts)
  end function
  integer function inquire_variable_desc(file, vardesc, name, xtype, ndims, dimids, natts) &
      result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(out), optional :: name
    integer, intent(out), optional :: xtype, ndims, natts
    integer, intent(out), optional :: dimids(:)
    ierr = inquire_variable_id(file%fh, vardesc%varid, name, xtype, ndims, dimids, natts)
  end function

  ! ---- attribute lookups (PIO_GLOBAL = 0 is varid 0, C's NC_GLOBAL = -1) ----
  integer function inq_att_id(ncid, varid, name, xtype, len) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: xtype
    integer(pio_offset_kind), intent(out), optional :: len
    integer(c_int) :: t
    integer(c_long_long) :: n
    ierr = pioc_inq_att(int(ncid, c_int), int(varid - 1, c_int), c_str(name), t, n)
    if (present(xtype)) xtype = t
    if (present(len)) len = n
  end function
  integer function inq_att_vid(file, varid, name, xtype, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: xtype
    integer(pio_offset_kind), intent(out), optional :: len
    ierr = inq_att_id(file%fh, varid, name, xtype, len)
  end function
  integer function inq_att_desc(file, vardesc, name, xtype, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: xtype
    integer(pio_offset_kind), intent(out), optional :: len
    ierr = inq_att_id(file%fh, vardesc%varid, name, xtype, len)
  end function

  integer function inq_attlen_id(ncid, varid, name, len) result(ierr)
    integer, intent(in) :: ncid, varid
    character(len=*), intent(in) :: name
    integer(pio_offset_kind), intent(out) :: len
    ierr = pioc_inq_attlen(int(ncid, c_int), int(varid - 1, c_int), c_str(name), len)
  end function
  integer function inq_attlen_vid(file, varid, name, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid
    character(len=*), intent(in) :: name
    integer(pio_offset_kind), intent(out) :: len
    ierr = inq_attlen_id(file%fh, varid, name, len)
  end function
  integer function inq_attlen_desc(file, vardesc, name, len) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vardesc
    character(len=*), intent(in) :: name
    integer(pio_offset_kind), intent(out) :: len
    ierr = inq_attlen_id(file%fh, vardesc%varid, name, len)
  end function

  integer function inq_attname_id(ncid, varid, attnum, name) result(ierr)
    integer, intent(in) :: ncid, varid, attnum
    character(len=*), intent(out) :: name
    character(kind=c_char, len=pio_max_name + 1) :: buf
    buf = ''
    ierr = pioc_inq_attname(int(ncid, c_int), int(varid - 1, c_int), int(attnum - 1, c_int), buf)
    name = ''
    if (ierr == pio_noerr) ierr = from_c(buf, name)
  end function
  integer function inq_attname_vid(file, varid, attnum, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: varid, attnum
    character(len=*), intent(out) :: name
    ierr = inq_attname_id(file%fh, varid, attnum, name)
  end function
  integer function inq_attname_desc(file, vdesc, attnum, name) result(ierr)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(in) :: vdesc
    integer, intent(in) :: attnum
    character(len=*), intent(out) :: name
    ierr = inq_attname_id(file%fh, vdesc%varid, attnum, name)
  end function

  ! ---- modes ----
  integer function enddef_id(ncid) result(ierr)
    integer, intent(in) :: ncid
    ierr = pioc_enddef(int(ncid, c_int))
  end function
  integer function enddef_desc(file) result(ierr)
    type(file_desc_t), intent(inout) :: file
    ierr = enddef_id(file%fh)
  end function
  integer function redef_id(ncid) result(ierr)
    integer, intent(in) :: ncid
    ierr = pioc_redef(int(ncid, c_int))
  end function
  integer function redef_desc(file) result(ierr)
    type(file_desc_t), intent(inout) :: file
    ierr = redef_id(file%fh)
  end function

  integer function set_fill_id(ncid, fillmode, old_mode) result(ierr)
    integer, intent(in) :: ncid, fillmode
    integer, intent(out) :: old_mode
    integer(c_int) :: old
    ierr = pioc_set_fill(int(ncid, c_int), int(fillmode, c_int), old)
    old_mode = old
  end function
  integer function set_fill_desc(file, fillmode, old_mode) result(ierr)
    type(file_desc_t), intent(in) :: file
    integer, intent(in) :: fillmode
    integer, intent(out) :: old_mode
    ierr = set_fill_id(file%fh, fillmode, old_mode)
  end function

  integer function set_log_level(log_level) result(ierr)
    integer, intent(in) :: log_level
    ierr = pioc_set_log_level(int(log_level, c_int))
  end function

  ! The text of an error code; errmsg is cut to its length (PIO's messages are short).
  integer function strerror(errcode, errmsg) result(ierr)
    integer, intent(in) :: errcode
    character(len=*), intent(out) :: errmsg
    character(kind=c_char, len=pio_max_name + 1) :: buf
    integer :: ignored
    buf = ''
    ierr = pioc_strerror(int(errcode, c_int), buf)
    ignored = from_c(buf, errmsg)
  end function
end module pio_meta
