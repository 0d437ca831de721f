"""Two jobs writing one path (issue 29, item 3): a second mpiexec job that opens, for writing
or appending, a path another job is writing fails at open with an error naming the path (and,
for a subfile dataset, the holder: the writer's lock, docs/reliability.md "A second writer"),
while the first job goes on; every step of the first job then reads back exactly (tapio's
reader, and netCDF4-python for the NetCDF engines). Before the lock, the NetCDF engines spliced the two runs and the subfile
engine deleted the first job's steps, and both jobs reported success.

The jobs are tests/crash/crash_writer (crash_harness.py describes its values and checks)."""
import re
import subprocess

import pytest

from conftest import MPI_ENV, mpiexec
from crash_harness import (RUN_TIMEOUT, Writer, check_netcdf, engine_of, out_path, verify,
                           writer_args)

RANKS = 2
STEPS = 16       # at SLEEP_MS each: long enough for the second job's two tries to start
SLEEP_MS = 400   # (mpiexec takes a second or two to start on a busy machine)


def second_job(writer, path, engine, *mode):
    """The second job: 3 steps to `path` (`mode`: "--append" or nothing); its output."""
    proc = subprocess.run(mpiexec(RANKS, *writer_args(writer, path, engine, RANKS, 3, 0, *mode)),
                          capture_output=True, text=True, env=MPI_ENV, timeout=RUN_TIMEOUT)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("engine", ["collective", "mpiio", "subfile"])
def test_second_job_is_refused_and_the_first_loses_nothing(writer, tmp_path, engine):
    path = out_path(tmp_path, engine)
    first = Writer(RANKS, *writer_args(writer, path, engine, RANKS, STEPS, SLEEP_MS))
    try:
        first.wait_committed(1)
        for mode in ((), ("--append",)):
            rc, out = second_job(writer, path, engine, *mode)
            assert rc == 2, out  # crash_writer's "the open or a step failed"
            holder = r" \(host [^,]+, pid \d+, since [0-9T:Z-]+\)" if engine == "subfile" else ""
            assert re.search(rf"^error: tapio_open: .*'{re.escape(str(path))}[^']*' is locked by "
                             rf"another writer{holder}:", out, re.M), out
            assert first.proc.poll() is None, "the first job ended before the second tried"
        rc = first.proc.wait(timeout=RUN_TIMEOUT)
        first.kill()  # collects its output; it has ended
    finally:
        first.cleanup()
    assert rc == 0, "".join(first.seen) + first.proc.stderr.read()
    rc, steps, out = verify(writer, RANKS, path, engine)
    assert rc == 0 and steps == STEPS, out
    if engine_of(engine) != "subfile":
        assert check_netcdf(path, STEPS, STEPS) == STEPS
