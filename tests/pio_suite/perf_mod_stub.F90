! The three calls of GPTL's perf_mod that PIO's pioperformance makes, for a PIO library that
! comes without GPTL (tapio's): wall-clock time from MPI_Wtime; no CPU times, no profile.
module perf_mod
  use mpi, only : MPI_Wtime
  implicit none
  private
  public :: t_initf, t_stampf, t_finalizef
contains
  subroutine t_initf(NLFilename, LogPrint, LogUnit, mpicom, MasterTask)
    character(len=*), intent(in) :: NLFilename
    logical, intent(in), optional :: LogPrint, MasterTask
    integer, intent(in), optional :: LogUnit, mpicom
  end subroutine t_initf

  subroutine t_stampf(wall, usr, sys)
    real(8), intent(out) :: wall, usr, sys
    wall = MPI_Wtime()
    usr = 0
    sys = 0
  end subroutine t_stampf

  subroutine t_finalizef()
  end subroutine t_finalizef
end module perf_mod
