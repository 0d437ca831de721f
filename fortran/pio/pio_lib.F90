! The iosystem, files, decompositions and frames of PIO's Fortran interface. Routines that PIO
! declares as subroutines with no status (PIO_init, PIO_closefile, PIO_syncfile, ...) keep that
! form; the C library reports their errors under the iosystem's error-handling mode.
module pio_lib
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_bool, c_ptr, c_loc, c_null_ptr
  use pio_kinds, only: pio_offset_kind
  use pio_types, only: iosystem_desc_t, file_desc_t, io_desc_t, var_desc_t, pio_rearr_opt_t, &
                       pio_noerr
  use pio_c
  use pio_strings, only: c_str
  use pio_support, only: piodie
  implicit none
  private
  public :: pio_init, pio_finalize, pio_initdecomp, pio_freedecomp, pio_get_local_array_size, &
    pio_createfile, pio_openfile, pio_closefile, pio_syncfile, pio_deletefile, &
    pio_file_is_open, pio_setframe, pio_advanceframe, pio_seterrorhandling, pio_set_hint, &
    pio_iotype_available, pio_set_rearr_opts, pio_getnumiotasks, pio_get_numiotasks, &
    pio_set_buffer_size_limit

  interface pio_init
    module procedure init_intracom
  end interface
  interface pio_finalize
    module procedure finalize
  end interface
  interface pio_initdecomp
    module procedure initdecomp_dof_i4, initdecomp_dof_i8
  end interface
  interface pio_freedecomp
    module procedure freedecomp_ios, freedecomp_file
  end interface
  interface pio_createfile
    module procedure createfile
  end interface
  interface pio_openfile
    module procedure openfile
  end interface
  interface pio_closefile
    module procedure closefile
  end interface
  interface pio_syncfile
    module procedure syncfile
  end interface
  interface pio_setframe
    module procedure setframe
  end interface
  interface pio_advanceframe
    module procedure advanceframe
  end interface
  interface pio_seterrorhandling
    module procedure seterrorhandling_file, seterrorhandling_iosystem, seterrorhandling_iosysid
  end interface
  interface pio_getnumiotasks
    module procedure getnumiotasks
  end interface
  interface pio_get_numiotasks
    module procedure getnumiotasks
  end interface

contains
  ! An iosystem over comp_comm with num_iotasks I/O tasks, stride apart from base. comp_rank and
  ! num_aggregator are accepted, as PIO does, and unused.
  subroutine init_intracom(comp_rank, comp_comm, num_iotasks, num_aggregator, stride, rearr, &
                           iosystem, base, rearr_opts)
    integer, intent(in) :: comp_rank, comp_comm, num_iotasks, num_aggregator, stride, rearr
    type(iosystem_desc_t), intent(out) :: iosystem
    integer, intent(in), optional :: base
    type(pio_rearr_opt_t), intent(in), optional, target :: rearr_opts
    integer(c_int) :: cbase, status
    type(c_ptr) :: opts
    if (comp_rank < 0 .or. num_aggregator < 0) continue
    cbase = 0
    if (present(base)) cbase = base
    opts = c_null_ptr
    if (present(rearr_opts)) opts = c_loc(rearr_opts)
    status = pioc_init_intracomm_from_f90(int(comp_comm, c_int), int(num_iotasks, c_int), &
                                          int(stride, c_int), cbase, int(rearr, c_int), opts, &
                                          iosystem%iosysid)
    iosystem%comp_comm = comp_comm
    ! PIO_init has no status argument: a failure here leaves nothing to work with.
    if (status /= pio_noerr) call piodie('pio_lib.F90', __LINE__, &
      'PIO_init: PIOc_Init_Intracomm_from_F90 failed with error', status)
  end subroutine

  subroutine finalize(iosystem, ierr)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(out) :: ierr
    ierr = pio_noerr
    if (iosystem%iosysid == -1) return
    ierr = pioc_finalize(iosystem%iosysid)
    iosystem%iosysid = -1
  end subroutine

  ! compdof: 1-based global offsets (Fortran order) of this rank's elements, 0 for a hole.
  ! dims, iostart and iocount are in Fortran order and 1-based; C gets them reversed, 0-based.
  subroutine initdecomp_dof_i8(iosystem, basepiotype, dims, compdof, iodesc, rearr, iostart, &
                               iocount)
    type(iosystem_desc_t), intent(in) :: iosystem
    integer, intent(in) :: basepiotype
    integer, intent(in) :: dims(:)
    integer(pio_offset_kind), intent(in) :: compdof(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer, intent(in), optional :: rearr
    integer(pio_offset_kind), intent(in), optional :: iostart(:), iocount(:)
    integer(c_int) :: cdims(size(dims)), status
    integer(c_int), target :: crearr
    integer(c_long_long), target :: cstart(size(dims)), ccount(size(dims))
    type(c_ptr) :: prearr, pstart, pcount
    cdims = int(dims(size(dims):1:-1), c_int)
    prearr = c_null_ptr
    if (present(rearr)) then
      crearr = rearr
      prearr = c_loc(crearr)
    end if
    pstart = c_null_ptr
    pcount = c_null_ptr
    if (present(iostart) .and. present(iocount)) then
      cstart = iostart(size(iostart):1:-1) - 1
      ccount = iocount(size(iocount):1:-1)
      pstart = c_loc(cstart)
      pcount = c_loc(ccount)
    end if
    status = pioc_initdecomp(iosystem%iosysid, int(basepiotype, c_int), int(size(dims), c_int), &
                             cdims, int(size(compdof), c_int), compdof, iodesc%ioid, prearr, &
                             pstart, pcount)
    if (status /= pio_noerr) iodesc%ioid = -1
  end subroutine

  subroutine initdecomp_dof_i4(iosystem, basepiotype, dims, compdof, iodesc, rearr, iostart, &
                               iocount)
    type(iosystem_desc_t), intent(in) :: iosystem
    integer, intent(in) :: basepiotype
    integer, intent(in) :: dims(:)
    integer, intent(in) :: compdof(:)
    type(io_desc_t), intent(inout) :: iodesc
    integer, intent(in), optional :: rearr
    integer(pio_offset_kind), intent(in), optional :: iostart(:), iocount(:)
    call initdecomp_dof_i8(iosystem, basepiotype, dims, int(compdof, pio_offset_kind), iodesc, &
                           rearr, iostart, iocount)
  end subroutine

  subroutine freedecomp_ios(ios, iodesc)
    type(iosystem_desc_t), intent(in) :: ios
    type(io_desc_t), intent(inout) :: iodesc
    integer(c_int) :: status
    status = pioc_freedecomp(ios%iosysid, iodesc%ioid)
    if (status == pio_noerr) iodesc%ioid = -1
  end subroutine

  ! Through a file: its buffered writes go out first, as in PIO.
  subroutine freedecomp_file(file, iodesc)
    type(file_desc_t), intent(inout) :: file
    type(io_desc_t), intent(inout) :: iodesc
    call syncfile(file)
    call freedecomp_ios(file%iosystem, iodesc)
  end subroutine

  integer function pio_get_local_array_size(iodesc) result(n)
    type(io_desc_t), intent(in) :: iodesc
    n = pioc_get_local_array_size(iodesc%ioid)
  end function

  ! amode_in: PIO_CLOBBER/PIO_NOCLOBBER with PIO_64BIT_OFFSET or PIO_64BIT_DATA (default CDF-1).
  integer function createfile(iosystem, file, iotype, fname, amode_in) result(ierr)
    type(iosystem_desc_t), intent(inout), target :: iosystem
    type(file_desc_t), intent(out) :: file
    integer, intent(in) :: iotype
    character(len=*), intent(in) :: fname
    integer, intent(in), optional :: amode_in
    integer(c_int) :: ciotype, mode
    ciotype = iotype
    mode = 0
    if (present(amode_in)) mode = amode_in
    ierr = pioc_createfile(iosystem%iosysid, file%fh, ciotype, c_str(fname), mode)
    file%iosystem => iosystem
  end function

  ! mode: PIO_NOWRITE (default) or PIO_WRITE.
  integer function openfile(iosystem, file, iotype, fname, mode) result(ierr)
    type(iosystem_desc_t), intent(inout), target :: iosystem
    type(file_desc_t), intent(out) :: file
    integer, intent(in) :: iotype
    character(len=*), intent(in) :: fname
    integer, intent(in), optional :: mode
    integer(c_int) :: ciotype, cmode
    ciotype = iotype
    cmode = 0
    if (present(mode)) cmode = mode
    ierr = pioc_openfile(iosystem%iosysid, file%fh, ciotype, c_str(fname), cmode)
    file%iosystem => iosystem
  end function

  subroutine closefile(file)
    type(file_desc_t), intent(inout) :: file
    integer(c_int) :: status
    status = pioc_closefile(file%fh)
    nullify(file%iosystem)
  end subroutine

  subroutine syncfile(file)
    type(file_desc_t), intent(inout) :: file
    integer(c_int) :: status
    status = pioc_sync(file%fh)
  end subroutine

  subroutine pio_deletefile(ios, fname, rc)
    type(iosystem_desc_t), intent(in) :: ios
    character(len=*), intent(in) :: fname
    integer, intent(out), optional :: rc
    integer(c_int) :: status
    status = pioc_deletefile(ios%iosysid, c_str(fname))
    if (present(rc)) rc = status
  end subroutine

  logical function pio_file_is_open(file) result(is_open)
    type(file_desc_t), intent(in) :: file
    is_open = .false.
    if (associated(file%iosystem)) is_open = pioc_file_is_open(file%fh) == 1
  end function

  ! frame is 1-based (the record number), as netCDF-Fortran's record index.
  subroutine setframe(file, vardesc, frame)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(inout) :: vardesc
    integer(pio_offset_kind), intent(in) :: frame
    integer(c_int) :: status
    status = pioc_setframe(file%fh, vardesc%varid - 1, int(frame - 1, c_int))
  end subroutine

  subroutine advanceframe(file, vardesc)
    type(file_desc_t), intent(in) :: file
    type(var_desc_t), intent(inout) :: vardesc
    integer(c_int) :: status
    status = pioc_advanceframe(file%fh, vardesc%varid - 1)
  end subroutine

  ! method: PIO_INTERNAL_ERROR, PIO_BCAST_ERROR or PIO_RETURN_ERROR; iosysid PIO_DEFAULT sets
  ! the default for iosystems made later.
  subroutine seterrorhandling_iosysid(iosysid, method, oldmethod)
    integer, intent(in) :: iosysid, method
    integer, intent(out), optional :: oldmethod
    integer(c_int) :: old
    old = pioc_set_iosystem_error_handling(int(iosysid, c_int), int(method, c_int))
    if (present(oldmethod)) oldmethod = old
  end subroutine

  subroutine seterrorhandling_iosystem(iosystem, method, oldmethod)
    type(iosystem_desc_t), intent(inout) :: iosystem
    integer, intent(in) :: method
    integer, intent(out), optional :: oldmethod
    call seterrorhandling_iosysid(iosystem%iosysid, method, oldmethod)
  end subroutine

  subroutine seterrorhandling_file(file, method, oldmethod)
    type(file_desc_t), intent(inout) :: file
    integer, intent(in) :: method
    integer, intent(out), optional :: oldmethod
    call seterrorhandling_iosysid(file%iosystem%iosysid, method, oldmethod)
  end subroutine

  subroutine pio_set_hint(iosystem, hint, hintval)
    type(iosystem_desc_t), intent(inout) :: iosystem
    character(len=*), intent(in) :: hint, hintval
    integer(c_int) :: status
    status = pioc_set_hint(iosystem%iosysid, c_str(hint), c_str(hintval))
  end subroutine

  logical function pio_iotype_available(iotype) result(available)
    integer, intent(in) :: iotype
    available = pioc_iotype_available(int(iotype, c_int)) == 1
  end function

  integer function pio_set_rearr_opts(ios, comm_type, fcd, enable_hs_c2i, enable_isend_c2i, &
      max_pend_req_c2i, enable_hs_i2c, enable_isend_i2c, max_pend_req_i2c) result(ierr)
    type(iosystem_desc_t), intent(inout) :: ios
    integer, intent(in) :: comm_type, fcd, max_pend_req_c2i, max_pend_req_i2c
    logical, intent(in) :: enable_hs_c2i, enable_isend_c2i, enable_hs_i2c, enable_isend_i2c
    ierr = pioc_set_rearr_opts(ios%iosysid, int(comm_type, c_int), int(fcd, c_int), &
                               logical(enable_hs_c2i, c_bool), logical(enable_isend_c2i, c_bool), &
                               int(max_pend_req_c2i, c_int), logical(enable_hs_i2c, c_bool), &
                               logical(enable_isend_i2c, c_bool), int(max_pend_req_i2c, c_int))
  end function

  subroutine getnumiotasks(iosystem, numiotasks)
    type(iosystem_desc_t), intent(in) :: iosystem
    integer, intent(out) :: numiotasks
    integer(c_int) :: status, n
    status = pioc_get_numiotasks(iosystem%iosysid, n)
    numiotasks = n
  end subroutine

  ! The bytes held for buffered darray writes before they go out; limit >= 0.
  subroutine pio_set_buffer_size_limit(limit)
    integer(pio_offset_kind), intent(in) :: limit
    integer(c_long_long) :: old
    if (limit < 0) call piodie('pio_lib.F90', __LINE__, &
      'pio_set_buffer_size_limit: the limit must not be negative, got', int(limit))
    old = pioc_set_buffer_size_limit(limit)
  end subroutine
end module pio_lib
