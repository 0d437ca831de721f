! What the Fortran test programs share: expect() compares a status with the one wanted and
! counts what is wrong; rank 0 prints each case, "case: ok" or "case: <strerror>: <message>".
! fail() counts a wrong value read back, printed by the rank that read it.
module test_checks
  use tapio
  implicit none
  integer :: rank = 0, wrong = 0

contains

  subroutine expect(what, status, want)
    character(len=*), intent(in) :: what
    integer, intent(in) :: status, want
    if (rank == 0) then
      if (status == TAPIO_OK) then
        print '(2a)', what, ": ok"
      else
        print '(4a)', what, ": ", tapio_strerror(status), ": " // tapio_last_error()
      end if
    end if
    if (status /= want) then
      wrong = wrong + 1
      print '(a, i0, 3a, i0, a, i0)', "rank ", rank, ": ", what, ": status ", status, &
        ", expected ", want
    end if
  end subroutine

  subroutine fail(what, value)
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    wrong = wrong + 1
    print '(a, i0, 3a, i0)', "rank ", rank, ": WRONG ", what, " ", value
  end subroutine
end module
