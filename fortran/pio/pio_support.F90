! PIO's support routines: piodie (print and abort), CheckMPIreturn, the text decomposition
! map files (pio_readdof, pio_writedof) through PIOc_readmap_from_f90 / PIOc_writemap_from_f90,
! and the NetCDF ones (pio_write_nc_dof, pio_read_nc_dof; docs/pio-fortran.md says where they
! differ from PIO's own bindings).
module pio_support
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_ptr, c_f_pointer, c_char, &
                                         c_null_char, c_null_ptr, c_loc
  use mpi, only: mpi_comm_world, mpi_success, mpi_max_error_string, mpi_abort, &
                 mpi_error_string, mpi_comm_rank
  use pio_kinds, only: pio_offset_kind
  use pio_types, only: iosystem_desc_t, io_desc_t, pio_double, pio_max_name, pio_noerr
  use pio_c, only: pioc_readmap_from_f90, pioc_writemap_from_f90, pioc_write_nc_decomp, &
                   pioc_read_nc_decomp, mpi_comm_f2c, c_free
  use pio_strings, only: c_str, from_c
  implicit none
  private
  public :: piodie, checkmpireturn, pio_readdof, pio_writedof, pio_write_nc_dof, pio_read_nc_dof
contains
  ! Abort every rank after printing where and why (PIO's last resort, kept for its callers).
  subroutine piodie(file, line, msg, ival1, msg2, ival2, msg3, ival3, mpirank)
    character(len=*), intent(in) :: file
    integer, intent(in) :: line
    character(len=*), intent(in), optional :: msg, msg2, msg3
    integer, intent(in), optional :: ival1, ival2, ival3, mpirank
    character(len=1024) :: text
    integer :: rank, ierr
    if (present(mpirank)) then
      rank = mpirank
    else
      call mpi_comm_rank(mpi_comm_world, rank, ierr)
    end if
    write(text, '(a,i0,a,a,a,i0,a)') 'piodie: rank ', rank, ': ', file, ':', line, ': '
    if (present(msg)) text = trim(text) // ' ' // msg
    if (present(ival1)) write(text, '(a,1x,i0)') trim(text), ival1
    if (present(msg2)) text = trim(text) // ' ' // msg2
    if (present(ival2)) write(text, '(a,1x,i0)') trim(text), ival2
    if (present(msg3)) text = trim(text) // ' ' // msg3
    if (present(ival3)) write(text, '(a,1x,i0)') trim(text), ival3
    write(0, '(a)') trim(text)
    flush(0)
    call mpi_abort(mpi_comm_world, 1, ierr)
    error stop 1
  end subroutine

  ! Print an MPI error's text; with file and line, die there.
  subroutine checkmpireturn(locmesg, errcode, file, line)
    character(len=*), intent(in) :: locmesg
    integer, intent(in) :: errcode
    character(len=*), intent(in), optional :: file
    integer, intent(in), optional :: line
    character(len=mpi_max_error_string) :: errorstring
    integer :: errorlen, ierr
    if (errcode == mpi_success) return
    call mpi_error_string(errcode, errorstring, errorlen, ierr)
    write(0, '(a)') trim(adjustl(locmesg)) // errorstring(1:errorlen)
    if (present(file) .and. present(line)) call piodie(file, line)
  end subroutine

  ! Read a text map file (PIO's format) on comm: this rank's compdof (1-based, 0 = hole) and
  ! the global dimensions. The arrays are the caller's to deallocate. A
  ! failure is returned in ierr, or, without ierr, dies naming the file (PIO has no status here).
  subroutine pio_readdof(file, ndims, gdims, dof, comm, ierr)
    character(len=*), intent(in) :: file
    integer, intent(out) :: ndims
    integer, pointer :: gdims(:)
    integer(pio_offset_kind), pointer :: dof(:)
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierr
    type(c_ptr) :: cgdims, cmap
    integer(c_int), pointer :: gview(:)
    integer(c_long_long), pointer :: mview(:)
    integer(c_long_long) :: maplen
    integer(c_int) :: cndims, status
    status = pioc_readmap_from_f90(c_str(file), cndims, cgdims, maplen, cmap, int(comm, c_int))
    if (present(ierr)) ierr = status
    if (status /= 0) then
      if (.not. present(ierr)) call piodie('pio_support.F90', __LINE__, &
        'pio_readdof: cannot read the decomposition file ' // trim(file) // ', error', status)
      ndims = 0
      allocate(gdims(0), dof(0))
      return
    end if
    ! The dimensions come back in the file's order, unreversed, as PIO's pio_readdof gives them
    ! (files written from Fortran, as E3SM's are, hold them in Fortran order).
    ndims = cndims
    call c_f_pointer(cgdims, gview, [ndims])
    call c_f_pointer(cmap, mview, [maplen])
    allocate(gdims(ndims), dof(maplen))
    gdims = gview
    dof = mview
    call c_free(cgdims)
    call c_free(cmap)
  end subroutine

  ! Write the ranks' compdofs on comm to a text map file; gdims stored as given (see above).
  subroutine pio_writedof(file, gdims, dof, comm, ierr)
    character(len=*), intent(in) :: file
    integer, intent(in) :: gdims(:)
    integer(pio_offset_kind), intent(in) :: dof(:)
    integer, intent(in) :: comm
    integer, intent(out), optional :: ierr
    integer(c_int) :: status
    integer(c_int) :: cdims(size(gdims))
    cdims = gdims
    status = pioc_writemap_from_f90(c_str(file), int(size(gdims), c_int), cdims, &
                                    int(size(dof), c_long_long), dof, int(comm, c_int))
    if (present(ierr)) ierr = status
  end subroutine

  ! Write iodesc's decomposition to a NetCDF decomposition file (PIO's format) on every task
  ! of ios. title and history become attributes when given; fortran_order (default .false.)
  ! only names the array_order attribute: the file holds the dimensions as the C library keeps
  ! them, in C order, whatever it says.
  subroutine pio_write_nc_dof(ios, filename, cmode, iodesc, ret, title, history, fortran_order)
    type(iosystem_desc_t), intent(in) :: ios
    character(len=*), intent(in) :: filename
    integer, intent(in) :: cmode
    type(io_desc_t), intent(in) :: iodesc
    integer, intent(out) :: ret
    character(len=*), intent(in), optional :: title, history
    logical, intent(in), optional :: fortran_order
    character(kind=c_char), allocatable, target :: ctitle(:), chistory(:)
    type(c_ptr) :: ptitle, phistory
    integer(c_int) :: forder
    ptitle = c_null_ptr
    phistory = c_null_ptr
    if (present(title)) then  ! whole: the C library refuses one over PIO_MAX_NAME
      allocate(ctitle(len_trim(title) + 1))
      ctitle = transfer(c_str(title), ctitle)
      ptitle = c_loc(ctitle)
    end if
    if (present(history)) then
      allocate(chistory(len_trim(history) + 1))
      chistory = transfer(c_str(history), chistory)
      phistory = c_loc(chistory)
    end if
    forder = 0
    if (present(fortran_order)) then
      if (fortran_order) forder = 1
    end if
    ret = pioc_write_nc_decomp(ios%iosysid, c_str(filename), int(cmode, c_int), iodesc%ioid, &
                               ptitle, phistory, forder)
  end subroutine

  ! Read a NetCDF decomposition file into a new iodesc for the tasks of ios (those PIO_init
  ! was given), each taking its own row. basepiotype (an addition to PIO's argument list,
  ! default PIO_double) is the type of the arrays PIO_write_darray and PIO_read_darray will
  ! pass with it, as in PIO_initdecomp. title, history and fortran_order come back from the
  ! file ("" when it has none); a title or history longer than the variable is PIO_ESTS.
  subroutine pio_read_nc_dof(ios, filename, iodesc, ret, title, history, fortran_order, &
                             basepiotype)
    type(iosystem_desc_t), intent(in) :: ios
    character(len=*), intent(in) :: filename
    type(io_desc_t), intent(out) :: iodesc
    integer, intent(out) :: ret
    character(len=*), intent(out), optional :: title, history
    logical, intent(out), optional :: fortran_order
    integer, intent(in), optional :: basepiotype
    character(kind=c_char, len=pio_max_name + 1) :: ctitle, chistory
    integer(c_int) :: forder, ctype, short
    ctype = pio_double
    if (present(basepiotype)) ctype = basepiotype
    ctitle = c_null_char
    chistory = c_null_char
    forder = 0
    ret = pioc_read_nc_decomp(ios%iosysid, c_str(filename), iodesc%ioid, &
                              mpi_comm_f2c(int(ios%comp_comm, c_int)), ctype, ctitle, chistory, &
                              forder)
    if (ret /= pio_noerr) iodesc%ioid = -1
    if (present(fortran_order)) fortran_order = forder /= 0
    short = pio_noerr
    if (present(title)) short = from_c(ctitle, title)
    if (present(history) .and. short == pio_noerr) short = from_c(chistory, history)
    if (ret == pio_noerr) ret = short
  end subroutine
end module pio_support
