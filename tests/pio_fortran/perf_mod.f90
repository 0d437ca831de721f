! A timing stub in place of PIO's perf_mod (GPTL), as issue 25 allows for pioperformance: the
! calls it makes, with t_stampf giving wall-clock and CPU seconds; the rest does nothing.
module perf_mod
  implicit none
  private
  public :: t_initf, t_finalizef, t_stampf, t_startf, t_stopf
contains
  subroutine t_initf(nlfilename, logprint, mpicom, mastertask)
    character(len=*), intent(in) :: nlfilename
    logical, intent(in), optional :: logprint, mastertask
    integer, intent(in), optional :: mpicom
    if (len(nlfilename) < 0 .and. present(logprint) .and. present(mpicom) .and. &
        present(mastertask)) continue
  end subroutine

  subroutine t_finalizef()
  end subroutine

  subroutine t_stampf(wall, usr, sys)
    double precision, intent(out) :: wall, usr, sys
    integer(kind=8) :: count, rate
    real :: cpu
    call system_clock(count, rate)
    call cpu_time(cpu)
    wall = dble(count) / dble(rate)
    usr = cpu
    sys = 0d0
  end subroutine

  subroutine t_startf(event)
    character(len=*), intent(in) :: event
    if (len(event) < 0) continue
  end subroutine

  subroutine t_stopf(event)
    character(len=*), intent(in) :: event
    if (len(event) < 0) continue
  end subroutine
end module perf_mod
