! The C functions of PIO 2.7's pio.h that the Fortran module calls, declared once. Ids, dims,
! starts and counts here are C's: 0-based and in C order. Typed data goes by address
! (type(c_ptr)), so one declaration serves every kind the module accepts.
module pio_c
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_char, c_ptr, c_bool, c_float
  implicit none
  private
  public :: pioc_init_intracomm_from_f90, pioc_finalize, pioc_set_iosystem_error_handling, &
    pioc_set_hint, pioc_iotype_available, pioc_set_rearr_opts, pioc_get_numiotasks, &
    pioc_set_log_level, pioc_strerror, pioc_set_buffer_size_limit, &
    pioc_initdecomp, pioc_freedecomp, pioc_get_local_array_size, &
    pioc_readmap_from_f90, pioc_writemap_from_f90, pioc_write_nc_decomp, pioc_read_nc_decomp, &
    mpi_comm_f2c, pioc_createfile, pioc_openfile, pioc_closefile, pioc_sync, pioc_deletefile, &
    pioc_file_is_open, pioc_redef, pioc_enddef, pioc_set_fill, &
    pioc_def_dim, pioc_inq_dimid, pioc_inq_dimname, pioc_inq_dimlen, pioc_inq_unlimdim, &
    pioc_inq_ndims, pioc_inq_nvars, pioc_inq_natts, &
    pioc_def_var, pioc_inq_varid, pioc_inq_varname, pioc_inq_vartype, pioc_inq_varndims, &
    pioc_inq_vardimid, pioc_inq_varnatts, pioc_inq_var_fill, &
    pioc_inq_att, pioc_inq_attlen, pioc_inq_attname, &
    pioc_setframe, pioc_advanceframe, pioc_write_darray, pioc_read_darray, &
    pioc_put_att_text, pioc_put_att_short, pioc_put_att_int, pioc_put_att_float, &
    pioc_put_att_double, pioc_get_att_text, pioc_get_att_short, pioc_get_att_int, &
    pioc_get_att_float, pioc_get_att_double, &
    pioc_put_vara_text, pioc_put_vara_short, pioc_put_vara_int, pioc_put_vara_float, &
    pioc_put_vara_double, pioc_get_vara_text, pioc_get_vara_short, pioc_get_vara_int, &
    pioc_get_vara_float, pioc_get_vara_double, &
    pioc_put_var_text, pioc_put_var_short, pioc_put_var_int, pioc_put_var_float, &
    pioc_put_var_double, pioc_get_var_text, pioc_get_var_short, pioc_get_var_int, &
    pioc_get_var_float, pioc_get_var_double, c_free, var_fn, vara_fn

  interface
    ! The iosystem.
    integer(c_int) function pioc_init_intracomm_from_f90(comm, num_iotasks, stride, base, &
        rearr, rearr_opts, iosysid) bind(c, name="PIOc_Init_Intracomm_from_F90")
      import :: c_int, c_ptr
      integer(c_int), value :: comm, num_iotasks, stride, base, rearr
      type(c_ptr), value :: rearr_opts
      integer(c_int), intent(out) :: iosysid
    end function
    integer(c_int) function pioc_finalize(iosysid) bind(c, name="PIOc_finalize")
      import :: c_int
      integer(c_int), value :: iosysid
    end function
    integer(c_int) function pioc_set_iosystem_error_handling(iosysid, method) &
        bind(c, name="PIOc_Set_IOSystem_Error_Handling")
      import :: c_int
      integer(c_int), value :: iosysid, method
    end function
    integer(c_int) function pioc_set_hint(iosysid, hint, hintval) bind(c, name="PIOc_set_hint")
      import :: c_int, c_char
      integer(c_int), value :: iosysid
      character(kind=c_char), intent(in) :: hint(*), hintval(*)
    end function
    integer(c_int) function pioc_iotype_available(iotype) bind(c, name="PIOc_iotype_available")
      import :: c_int
      integer(c_int), value :: iotype
    end function
    integer(c_int) function pioc_set_rearr_opts(iosysid, comm_type, fcd, enable_hs_c2i, &
        enable_isend_c2i, max_pend_req_c2i, enable_hs_i2c, enable_isend_i2c, max_pend_req_i2c) &
        bind(c, name="PIOc_set_rearr_opts")
      import :: c_int, c_bool
      integer(c_int), value :: iosysid, comm_type, fcd, max_pend_req_c2i, max_pend_req_i2c
      logical(c_bool), value :: enable_hs_c2i, enable_isend_c2i, enable_hs_i2c, enable_isend_i2c
    end function
    integer(c_int) function pioc_get_numiotasks(iosysid, numiotasks) &
        bind(c, name="PIOc_get_numiotasks")
      import :: c_int
      integer(c_int), value :: iosysid
      integer(c_int), intent(out) :: numiotasks
    end function
    integer(c_int) function pioc_set_log_level(level) bind(c, name="PIOc_set_log_level")
      import :: c_int
      integer(c_int), value :: level
    end function
    integer(c_int) function pioc_strerror(pioerr, errstr) bind(c, name="PIOc_strerror")
      import :: c_int, c_char
      integer(c_int), value :: pioerr
      character(kind=c_char), intent(out) :: errstr(*)
    end function
    integer(c_long_long) function pioc_set_buffer_size_limit(limit) &
        bind(c, name="PIOc_set_buffer_size_limit")
      import :: c_long_long
      integer(c_long_long), value :: limit
    end function

    ! Decompositions and map files.
    integer(c_int) function pioc_initdecomp(iosysid, pio_type, ndims, gdimlen, maplen, compmap, &
        ioid, rearr, iostart, iocount) bind(c, name="PIOc_InitDecomp")
      import :: c_int, c_long_long, c_ptr
      integer(c_int), value :: iosysid, pio_type, ndims, maplen
      integer(c_int), intent(in) :: gdimlen(*)
      integer(c_long_long), intent(in) :: compmap(*)
      integer(c_int), intent(out) :: ioid
      type(c_ptr), value :: rearr, iostart, iocount
    end function
    integer(c_int) function pioc_freedecomp(iosysid, ioid) bind(c, name="PIOc_freedecomp")
      import :: c_int
      integer(c_int), value :: iosysid, ioid
    end function
    integer(c_int) function pioc_get_local_array_size(ioid) &
        bind(c, name="PIOc_get_local_array_size")
      import :: c_int
      integer(c_int), value :: ioid
    end function
    integer(c_int) function pioc_readmap_from_f90(file, ndims, gdims, maplen, map, comm) &
        bind(c, name="PIOc_readmap_from_f90")
      import :: c_int, c_char, c_ptr, c_long_long
      character(kind=c_char), intent(in) :: file(*)
      integer(c_int), intent(out) :: ndims
      type(c_ptr), intent(out) :: gdims, map
      integer(c_long_long), intent(out) :: maplen
      integer(c_int), value :: comm
    end function
    integer(c_int) function pioc_writemap_from_f90(file, ndims, gdims, maplen, map, comm) &
        bind(c, name="PIOc_writemap_from_f90")
      import :: c_int, c_char, c_long_long
      character(kind=c_char), intent(in) :: file(*)
      integer(c_int), value :: ndims, comm
      integer(c_int), intent(in) :: gdims(*)
      integer(c_long_long), value :: maplen
      integer(c_long_long), intent(in) :: map(*)
    end function

    ! Files.
    integer(c_int) function pioc_createfile(iosysid, ncid, iotype, fname, mode) &
        bind(c, name="PIOc_createfile")
      import :: c_int, c_char
      integer(c_int), value :: iosysid, mode
      integer(c_int), intent(out) :: ncid
      integer(c_int), intent(inout) :: iotype
      character(kind=c_char), intent(in) :: fname(*)
    end function
    integer(c_int) function pioc_openfile(iosysid, ncid, iotype, fname, mode) &
        bind(c, name="PIOc_openfile")
      import :: c_int, c_char
      integer(c_int), value :: iosysid, mode
      integer(c_int), intent(out) :: ncid
      integer(c_int), intent(inout) :: iotype
      character(kind=c_char), intent(in) :: fname(*)
    end function
    integer(c_int) function pioc_closefile(ncid) bind(c, name="PIOc_closefile")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function pioc_sync(ncid) bind(c, name="PIOc_sync")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function pioc_deletefile(iosysid, fname) bind(c, name="PIOc_deletefile")
      import :: c_int, c_char
      integer(c_int), value :: iosysid
      character(kind=c_char), intent(in) :: fname(*)
    end function
    integer(c_int) function pioc_file_is_open(ncid) bind(c, name="PIOc_File_is_Open")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function pioc_redef(ncid) bind(c, name="PIOc_redef")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function pioc_enddef(ncid) bind(c, name="PIOc_enddef")
      import :: c_int
      integer(c_int), value :: ncid
    end function
    integer(c_int) function pioc_set_fill(ncid, fillmode, old_mode) bind(c, name="PIOc_set_fill")
      import :: c_int
      integer(c_int), value :: ncid, fillmode
      integer(c_int), intent(out) :: old_mode
    end function

    ! Dimensions and the file's counts.
    integer(c_int) function pioc_def_dim(ncid, name, len, dimid) bind(c, name="PIOc_def_dim")
      import :: c_int, c_char, c_long_long
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long), value :: len
      integer(c_int), intent(out) :: dimid
    end function
    integer(c_int) function pioc_inq_dimid(ncid, name, dimid) bind(c, name="PIOc_inq_dimid")
      import :: c_int, c_char
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: dimid
    end function
    integer(c_int) function pioc_inq_dimname(ncid, dimid, name) bind(c, name="PIOc_inq_dimname")
      import :: c_int, c_char
      integer(c_int), value :: ncid, dimid
      character(kind=c_char), intent(out) :: name(*)
    end function
    integer(c_int) function pioc_inq_dimlen(ncid, dimid, len) bind(c, name="PIOc_inq_dimlen")
      import :: c_int, c_long_long
      integer(c_int), value :: ncid, dimid
      integer(c_long_long), intent(out) :: len
    end function
    integer(c_int) function pioc_inq_unlimdim(ncid, dimid) bind(c, name="PIOc_inq_unlimdim")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: dimid
    end function
    integer(c_int) function pioc_inq_ndims(ncid, n) bind(c, name="PIOc_inq_ndims")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: n
    end function
    integer(c_int) function pioc_inq_nvars(ncid, n) bind(c, name="PIOc_inq_nvars")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: n
    end function
    integer(c_int) function pioc_inq_natts(ncid, n) bind(c, name="PIOc_inq_natts")
      import :: c_int
      integer(c_int), value :: ncid
      integer(c_int), intent(out) :: n
    end function

    ! Variables.
    integer(c_int) function pioc_def_var(ncid, name, xtype, ndims, dimids, varid) &
        bind(c, name="PIOc_def_var")
      import :: c_int, c_char
      integer(c_int), value :: ncid, xtype, ndims
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(in) :: dimids(*)
      integer(c_int), intent(out) :: varid
    end function
    integer(c_int) function pioc_inq_varid(ncid, name, varid) bind(c, name="PIOc_inq_varid")
      import :: c_int, c_char
      integer(c_int), value :: ncid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: varid
    end function
    integer(c_int) function pioc_inq_varname(ncid, varid, name) bind(c, name="PIOc_inq_varname")
      import :: c_int, c_char
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(out) :: name(*)
    end function
    integer(c_int) function pioc_inq_vartype(ncid, varid, xtype) bind(c, name="PIOc_inq_vartype")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: xtype
    end function
    integer(c_int) function pioc_inq_varndims(ncid, varid, ndims) &
        bind(c, name="PIOc_inq_varndims")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: ndims
    end function
    integer(c_int) function pioc_inq_vardimid(ncid, varid, dimids) &
        bind(c, name="PIOc_inq_vardimid")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: dimids(*)
    end function
    integer(c_int) function pioc_inq_varnatts(ncid, varid, natts) &
        bind(c, name="PIOc_inq_varnatts")
      import :: c_int
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: natts
    end function
    integer(c_int) function pioc_inq_var_fill(ncid, varid, no_fill, fillvalue) &
        bind(c, name="PIOc_inq_var_fill")
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_int), intent(out) :: no_fill
      type(c_ptr), value :: fillvalue
    end function

    ! Attribute inquiries.
    integer(c_int) function pioc_inq_att(ncid, varid, name, xtype, len) bind(c, name="PIOc_inq_att")
      import :: c_int, c_char, c_long_long
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: xtype
      integer(c_long_long), intent(out) :: len
    end function
    integer(c_int) function pioc_inq_attlen(ncid, varid, name, len) &
        bind(c, name="PIOc_inq_attlen")
      import :: c_int, c_char, c_long_long
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long), intent(out) :: len
    end function
    integer(c_int) function pioc_inq_attname(ncid, varid, attnum, name) &
        bind(c, name="PIOc_inq_attname")
      import :: c_int, c_char
      integer(c_int), value :: ncid, varid, attnum
      character(kind=c_char), intent(out) :: name(*)
    end function

    ! Distributed arrays.
    integer(c_int) function pioc_setframe(ncid, varid, frame) bind(c, name="PIOc_setframe")
      import :: c_int
      integer(c_int), value :: ncid, varid, frame
    end function
    integer(c_int) function pioc_advanceframe(ncid, varid) bind(c, name="PIOc_advanceframe")
      import :: c_int
      integer(c_int), value :: ncid, varid
    end function
    integer(c_int) function pioc_write_darray(ncid, varid, ioid, arraylen, array, fillvalue) &
        bind(c, name="PIOc_write_darray")
      import :: c_int, c_long_long, c_ptr
      integer(c_int), value :: ncid, varid, ioid
      integer(c_long_long), value :: arraylen
      type(c_ptr), value :: array, fillvalue
    end function
    integer(c_int) function pioc_read_darray(ncid, varid, ioid, arraylen, array) &
        bind(c, name="PIOc_read_darray")
      import :: c_int, c_long_long, c_ptr
      integer(c_int), value :: ncid, varid, ioid
      integer(c_long_long), value :: arraylen
      type(c_ptr), value :: array
    end function
  end interface

  ! Attributes by type: put (ncid, varid, name, xtype, len, op), get (ncid, varid, name, ip).
  abstract interface
    integer(c_int) function put_att_fn(ncid, varid, name, xtype, len, op) bind(c)
      import :: c_int, c_char, c_long_long, c_ptr
      integer(c_int), value :: ncid, varid, xtype
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long), value :: len
      type(c_ptr), value :: op
    end function
  end interface
  interface
    integer(c_int) function pioc_put_att_text(ncid, varid, name, len, op) &
        bind(c, name="PIOc_put_att_text")
      import :: c_int, c_char, c_long_long, c_ptr
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      integer(c_long_long), value :: len
      type(c_ptr), value :: op
    end function
  end interface
  procedure(put_att_fn), bind(c, name="PIOc_put_att_short") :: pioc_put_att_short
  procedure(put_att_fn), bind(c, name="PIOc_put_att_int") :: pioc_put_att_int
  procedure(put_att_fn), bind(c, name="PIOc_put_att_float") :: pioc_put_att_float
  procedure(put_att_fn), bind(c, name="PIOc_put_att_double") :: pioc_put_att_double

  abstract interface
    integer(c_int) function get_att_fn(ncid, varid, name, ip) bind(c)
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: ncid, varid
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), value :: ip
    end function
    ! Whole variables: (ncid, varid, op); boxes: (ncid, varid, start, count, op).
    integer(c_int) function var_fn(ncid, varid, op) bind(c)
      import :: c_int, c_ptr
      integer(c_int), value :: ncid, varid
      type(c_ptr), value :: op
    end function
    integer(c_int) function vara_fn(ncid, varid, start, count, op) bind(c)
      import :: c_int, c_long_long, c_ptr
      integer(c_int), value :: ncid, varid
      integer(c_long_long), intent(in) :: start(*), count(*)
      type(c_ptr), value :: op
    end function
  end interface
  procedure(get_att_fn), bind(c, name="PIOc_get_att_text") :: pioc_get_att_text
  procedure(get_att_fn), bind(c, name="PIOc_get_att_short") :: pioc_get_att_short
  procedure(get_att_fn), bind(c, name="PIOc_get_att_int") :: pioc_get_att_int
  procedure(get_att_fn), bind(c, name="PIOc_get_att_float") :: pioc_get_att_float
  procedure(get_att_fn), bind(c, name="PIOc_get_att_double") :: pioc_get_att_double

  procedure(var_fn), bind(c, name="PIOc_put_var_text") :: pioc_put_var_text
  procedure(var_fn), bind(c, name="PIOc_put_var_short") :: pioc_put_var_short
  procedure(var_fn), bind(c, name="PIOc_put_var_int") :: pioc_put_var_int
  procedure(var_fn), bind(c, name="PIOc_put_var_float") :: pioc_put_var_float
  procedure(var_fn), bind(c, name="PIOc_put_var_double") :: pioc_put_var_double
  procedure(var_fn), bind(c, name="PIOc_get_var_text") :: pioc_get_var_text
  procedure(var_fn), bind(c, name="PIOc_get_var_short") :: pioc_get_var_short
  procedure(var_fn), bind(c, name="PIOc_get_var_int") :: pioc_get_var_int
  procedure(var_fn), bind(c, name="PIOc_get_var_float") :: pioc_get_var_float
  procedure(var_fn), bind(c, name="PIOc_get_var_double") :: pioc_get_var_double

  procedure(vara_fn), bind(c, name="PIOc_put_vara_text") :: pioc_put_vara_text
  procedure(vara_fn), bind(c, name="PIOc_put_vara_short") :: pioc_put_vara_short
  procedure(vara_fn), bind(c, name="PIOc_put_vara_int") :: pioc_put_vara_int
  procedure(vara_fn), bind(c, name="PIOc_put_vara_float") :: pioc_put_vara_float
  procedure(vara_fn), bind(c, name="PIOc_put_vara_double") :: pioc_put_vara_double
  procedure(vara_fn), bind(c, name="PIOc_get_vara_text") :: pioc_get_vara_text
  procedure(vara_fn), bind(c, name="PIOc_get_vara_short") :: pioc_get_vara_short
  procedure(vara_fn), bind(c, name="PIOc_get_vara_int") :: pioc_get_vara_int
  procedure(vara_fn), bind(c, name="PIOc_get_vara_float") :: pioc_get_vara_float
  procedure(vara_fn), bind(c, name="PIOc_get_vara_double") :: pioc_get_vara_double

  interface
    ! title and history: NUL-terminated, or c_null_ptr for none.
    integer(c_int) function pioc_write_nc_decomp(iosysid, filename, cmode, ioid, title, &
                                                 history, fortran_order) &
        bind(c, name="PIOc_write_nc_decomp")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: iosysid, cmode, ioid, fortran_order
      character(kind=c_char), intent(in) :: filename(*)
      type(c_ptr), value :: title, history
    end function
    ! comm is a C MPI_Comm (mpi_comm_f2c); title and history: buffers of PIO_MAX_NAME + 1.
    integer(c_int) function pioc_read_nc_decomp(iosysid, filename, ioid, comm, pio_type, title, &
                                                history, fortran_order) &
        bind(c, name="PIOc_read_nc_decomp")
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: iosysid, pio_type
      character(kind=c_char), intent(in) :: filename(*)
      integer(c_int), intent(out) :: ioid, fortran_order
      type(c_ptr), value :: comm
      character(kind=c_char), intent(out) :: title(*), history(*)
    end function
    ! MPI's C handle of a Fortran communicator (Open MPI's MPI_Comm is a pointer).
    type(c_ptr) function mpi_comm_f2c(comm) bind(c, name="MPI_Comm_f2c")
      import :: c_int, c_ptr
      integer(c_int), value :: comm
    end function
    ! The C library allocates the arrays PIOc_readmap_from_f90 returns.
    subroutine c_free(p) bind(c, name="free")
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine
  end interface
end module pio_c
