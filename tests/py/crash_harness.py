"""The crash tests' harness (test_crash_*.py, test_dead_writer.py, test_second_writer.py):
tests/crash/crash_writer under mpiexec, killed with SIGKILL, and the checks of what it left.

Crash consistency: a writer killed with SIGKILL leaves every step it committed readable, with
exact values, and a dataset that can be appended to.

tests/crash/crash_writer writes steps of a 3-D float64 block-decomposed variable (4 MiB a
step), a 1-D int32 irregular one and a fixed one, printing `committed S` after each end_step.
The whole process group (mpiexec and its ranks) is killed with SIGKILL at several points:

  (a) right after `committed k` is printed, while the writer sleeps (between steps);
  (b) at seeded random delays after the first commit, with no sleep (mid-step, mostly);
  (c) before any commit: the output then either fails to open with a clear error, or has 0
      steps; never garbage.

Every step printed as committed before the kill must be readable (the reader may also see the
one step the writer committed without living to print it) and every element of every readable
step is checked: with `crash_writer --verify` (tapio's own reader, another decomposition) for
every engine, and with netCDF4-python for the `.nc` engines.
Values: element g of temp at step s is g + s*2^20, ids holds g + s*2^20, grid holds g + 0.5.

`serial-async`, `subfile-async`, `collective-async` and `mpiio-async` are those engines with
`async = true`:
end_step returns
before the step is
on storage, and a step's commit finishes during the next end_step but one (the next one
agrees its writes succeeded and queues the commit; the one after waits for it). So after
`committed k` only the steps before k - 1 are known committed (LAG); every step the reader
sees is still checked exact."""
import os
import queue
import re
import signal
import subprocess
import threading
import time

import netCDF4
import numpy as np
import pytest

from conftest import MPI_ENV, mpiexec

ENGINES = ["subfile", "collective", "serial", "mpiio", "serial-async", "subfile-async",
           "collective-async", "mpiio-async"]
# end_steps between a step's end_step and its commit finishing
LAG = {"serial-async": 2, "subfile-async": 2, "collective-async": 2, "mpiio-async": 2}
TEMP_SHAPE = (8, 256, 256)
IDS = 1 << 18
GRID = 4096
MANY_STEPS = 400        # more than any kill waits for
RUN_TIMEOUT = 60        # seconds, for any one subprocess
# Per-engine parameters: the subfile engine gets two virtual nodes at 4 ranks, so two
# aggregators write two subfiles, and the parallel `log` metadata backend.
PARAMS = {
    ("subfile", 4): ["--param", "ranks_per_node=2", "--param", "metadata=log"],
    ("serial-async", 1): ["--param", "async=true"],
    ("serial-async", 2): ["--param", "async=true"],
    ("serial-async", 4): ["--param", "async=true", "--param", "async_buffer=2MiB"],
    ("subfile-async", 1): ["--param", "async=true"],
    ("subfile-async", 2): ["--param", "async=true"],
    ("subfile-async", 4): ["--param", "ranks_per_node=2", "--param", "async=true",
                           "--param", "async_buffer=2MiB"],
    # Through the aggregators in 1 MiB rounds, 4 slots each; at 4 ranks two virtual nodes, so
    # rounds travel as messages too.
    ("mpiio-async", 1): ["--param", "async=true"],
    ("mpiio-async", 2): ["--param", "async=true"],
    ("mpiio-async", 4): ["--param", "async=true"],
    ("collective-async", 1): ["--param", "async=true"],
    ("collective-async", 2): ["--param", "async=true", "--param", "direct=never",
                              "--param", "buffer_size=1MiB", "--param", "async_buffer=4MiB"],
    ("collective-async", 4): ["--param", "ranks_per_node=2", "--param", "async=true",
                              "--param", "direct=never", "--param", "buffer_size=1MiB",
                              "--param", "async_buffer=4MiB"],
}


def engine_of(engine):
    """The tapio engine a test engine name runs (serial-async: serial with async)."""
    return engine.removesuffix("-async")


def out_path(tmp_path, engine):
    return tmp_path / ("out.tapio" if engine_of(engine) == "subfile" else "out.nc")


def known_committed(engine, printed):
    """Steps known committed after `printed` steps were printed as ended."""
    return max(0, printed - LAG.get(engine, 0))


def session_pids(sid):
    """The processes of session `sid` (mpiexec and every rank it started)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # fields[3] is the session id
            pids.append(int(entry))
    return pids


def kill_all(proc):
    """SIGKILL the writer: every process of its session (Open MPI puts each rank in a process
    group of its own, so killpg of mpiexec's group alone would leave the ranks writing), ranks
    first so that none outlives mpiexec; then reap."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = sorted(session_pids(proc.pid), key=lambda pid: pid == proc.pid)
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        time.sleep(0.01)
    proc.wait(timeout=10)
    assert not session_pids(proc.pid), "writer processes survived SIGKILL"


class Writer:
    """crash_writer under mpiexec in its own session; stdout lines arrive on a queue."""

    def __init__(self, ranks, *args):
        self.proc = subprocess.Popen(mpiexec(ranks, *args), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=MPI_ENV,
                                     start_new_session=True)
        self.lines = queue.Queue()
        self.committed = -1  # the last step printed as committed
        self.seen = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _take(self, line):
        self.seen.append(line)
        m = re.fullmatch(r"committed (\d+)\n", line)
        if m:
            self.committed = int(m.group(1))

    def _wait(self, done, what, timeout=RUN_TIMEOUT):
        deadline = time.monotonic() + timeout
        while not done():
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no `{what}` within {timeout} s; saw {self.seen}")
            if line is None:
                pytest.fail(f"writer ended before `{what}`: {self.seen}\n"
                            f"{self.proc.stderr.read()}")
            self._take(line)

    def wait_committed(self, step):
        """Block until `committed step` is printed."""
        self._wait(lambda: self.committed >= step, f"committed {step}")

    def wait_line(self, want):
        """Block until the line `want` is printed (`opening`, `closing S`)."""
        self._wait(lambda: want + "\n" in self.seen, want)

    def drain(self):
        """Take the lines printed so far, without waiting."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put(None)  # the end stays for kill() to find
                return
            self._take(line)

    def kill(self):
        """SIGKILL everything, then collect what was printed before the kill."""
        kill_all(self.proc)
        while True:
            try:
                line = self.lines.get(timeout=10)
            except queue.Empty:
                pytest.fail("stdout of the killed writer did not close")
            if line is None:
                break
            self._take(line)
        return self.committed + 1  # steps known committed

    def cleanup(self):
        if self.proc.poll() is None or session_pids(self.proc.pid):
            kill_all(self.proc)


def verify(writer, ranks, path, engine):
    """crash_writer --verify: (returncode, steps or None, output)."""
    cmd = mpiexec(ranks, writer, path, engine_of(engine), 0, "--verify",
                  *PARAMS.get((engine, ranks), []))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=MPI_ENV, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None or session_pids(proc.pid):
            kill_all(proc)
    m = re.search(r"^steps (\d+)$", out, re.M)
    return proc.returncode, int(m.group(1)) if m else None, out + err


def check_netcdf(path, min_steps, max_steps):
    """netCDF4-python opens the file; its records are the committed steps, exact."""
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        n = len(ds.dimensions["time"])
        assert min_steps <= n <= max_steps, f"{path}: {n} records, expected {min_steps}..{max_steps}"
        g = np.arange(np.prod(TEMP_SHAPE), dtype=np.float64).reshape(TEMP_SHAPE)
        gi = np.arange(IDS, dtype=np.int64)
        if n:
            np.testing.assert_array_equal(ds["grid"][:], np.arange(GRID) + 0.5)
        for s in range(n):
            np.testing.assert_array_equal(ds["temp"][s], g + s * 2.0**20, err_msg=f"temp step {s}")
            np.testing.assert_array_equal(ds["ids"][s], gi + s * 2**20, err_msg=f"ids step {s}")
        return n


def check_after_kill(writer, ranks, path, engine, printed):
    """Every step known committed is readable and exact. The reader may see a step or two
    more: one committed but not yet printed, and a `committed` line still on its way through
    mpiexec when the kill landed."""
    committed = known_committed(engine, printed)
    # No upper bound but the steps asked for: the `committed` lines mpiexec still holds at the
    # kill are lost, and how many depends on the load (seen: 2 at rest, 10 for an async
    # writer, 11 at a load average of 10). Every step read is still checked exact.
    most = MANY_STEPS
    rc, steps, out = verify(writer, ranks, path, engine)
    assert rc == 0, f"{engine} at {ranks} ranks, {committed} steps committed:\n{out}"
    assert steps is not None and committed <= steps <= most, out
    if engine_of(engine) != "subfile":
        assert check_netcdf(path, committed, most) == steps
    return steps


def check_refused_or_exact(writer, ranks, path, engine, committed):
    """After a kill that may have landed before the first commit: the reader refuses the
    output with a clear error naming it (only if nothing was known committed), or reads its
    steps exactly. No upper bound beyond the steps asked for: within a few milliseconds a fast
    writer commits steps whose `committed` lines the kill loses inside mpiexec. Every step the
    reader sees is checked value by value, which is what rules out garbage."""
    rc, steps, out = verify(writer, ranks, path, engine)
    if rc == 0:  # 0 steps, or steps that committed before the kill landed: all exact
        assert steps is not None and committed <= steps <= MANY_STEPS, out
    else:
        assert rc == 2 and not committed, out
        assert re.search(rf"^error: tapio_open: .*'{re.escape(str(path))}'", out, re.M), out
    if engine_of(engine) != "subfile":
        try:
            assert check_netcdf(path, committed, MANY_STEPS) == (steps or 0)
        except OSError:  # netCDF4 may refuse what tapio refused, nothing else
            assert rc != 0, out


def append_and_check(writer, path, engine, ranks, before):
    """Append 2 steps to a killed writer's output (with `ranks` ranks) and read all back."""
    a = Writer(ranks, *writer_args(writer, path, engine, ranks, 2, 0, "--append"))
    try:
        rc = a.proc.wait(timeout=RUN_TIMEOUT)
        a.kill()  # collects the output; the processes have ended
    finally:
        a.cleanup()
    assert rc == 0, f"append after a crash failed:\n{''.join(a.seen)}{a.proc.stderr.read()}"
    assert a.committed == before + 1 and f"closed {before + 2}\n" in a.seen, a.seen
    rc, steps, out = verify(writer, ranks, path, engine)
    assert rc == 0 and steps == before + 2, out
    if engine_of(engine) != "subfile":
        assert check_netcdf(path, before + 2, before + 2) == before + 2


def writer_args(writer, path, engine, ranks, steps, sleep_ms, *extra):
    return (writer, path, engine_of(engine), steps, sleep_ms, *extra,
            *PARAMS.get((engine, ranks), []))


def writer_ranks(proc):
    """The writer's rank processes (its session's crash_writer processes, not mpiexec)."""
    pids = []
    for pid in session_pids(proc.pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == "crash_writer":
                    pids.append(pid)
        except OSError:
            pass
    return sorted(pids)


def kill_one_rank(w, rng):
    """SIGKILL one of the writer's rank processes (a seeded choice); Open MPI must then end the
    job. Returns what was printed as committed before the kill."""
    ranks = writer_ranks(w.proc)
    assert len(ranks) == 4, f"expected 4 rank processes, found {ranks}"
    os.kill(rng.choice(ranks), signal.SIGKILL)
    try:
        w.proc.wait(timeout=RUN_TIMEOUT)  # Open MPI aborts the other ranks
    except subprocess.TimeoutExpired:
        pytest.fail("the job went on after one of its ranks was killed")
    return w.kill()  # collects what was printed; reaps anything left


SLOW_MS = 1000  # open(2) / fsync(2) delay that holds the writer inside open / close
