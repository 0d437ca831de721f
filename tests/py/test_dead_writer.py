"""A killed writer's subfile dataset (issue 27, item 4): a reader reads every committed step,
then is told that the writer is gone once it has committed nothing for `writer_timeout`
seconds, instead of waiting forever: in C (crash_writer --follow, over the C API), Fortran
(tests/fortran/follow_f.f90), Python (`f.steps()` raises tapio.WriterGoneError) and `tapio ls`
("writer: not closed"). A writer that closed still gives the end of the stream. `tapio repair`
rebuilds a deleted or damaged tapio.idx from tapio.md, and every committed step reads back
exactly (crash_writer --verify checks every value).

The writers are tests/crash/crash_writer, killed with SIGKILL as in test_crash_*.py."""
import os
import random
import re
import subprocess
import sys
import time

import pytest

from conftest import BUILD, MPI_ENV, mpiexec
from crash_harness import (MANY_STEPS, PARAMS, RUN_TIMEOUT, Writer, append_and_check,
                           kill_all, session_pids, verify, writer_args)

TIMEOUT = 3  # the readers' writer_timeout, seconds
TAPIO = BUILD / "tools" / "tapio"
# Subfile writers: 1 rank (metadata = gather), 4 ranks on two virtual nodes (metadata = log),
# 2 ranks with metadata = aligned (each writer's records at a 4 KiB boundary).
CASES = [(1, ()), (4, ()), (2, ("--param", "metadata=aligned"))]


def run(cmd):
    """(returncode, stdout + stderr) of a command in its own session, killed whole on timeout."""
    proc = subprocess.Popen(list(map(str, cmd)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=MPI_ENV, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None or session_pids(proc.pid):
            kill_all(proc)
    return proc.returncode, out + err


def killed_dataset(writer, path, ranks, extra, mid_step):
    """A subfile dataset whose writer was killed after its third commit: between steps (the
    writer sleeping), or at a seeded moment inside a later step. Returns the steps printed."""
    sleep_ms = 0 if mid_step else 300
    w = Writer(ranks, *writer_args(writer, path, "subfile", ranks, MANY_STEPS, sleep_ms, *extra))
    try:
        w.wait_committed(2)
        if mid_step:
            time.sleep(random.Random(f"{ranks}{extra}").uniform(0.0, 0.3))
        committed = w.kill()
    finally:
        w.cleanup()
    return committed


def ls_writer_line(path):
    """The writer line of `tapio ls` (and of `python -m tapio ls`, which prints the same)."""
    rc, out = run([TAPIO, "ls", path])
    assert rc == 0, out
    assert run([sys.executable, "-m", "tapio", "ls", path]) == (0, out)
    m = re.search(r"^writer: (.*)$", out, re.M)
    assert m, out
    return m.group(1)


PY_FOLLOW = """
import sys, numpy as np, tapio
path, timeout = sys.argv[1], sys.argv[2]
g = np.arange(8 * 256 * 256, dtype=np.float64).reshape(8, 256, 256)
seen = []
with tapio.open(path, "r", engine="subfile", parameters={"writer_timeout": timeout}) as f:
    try:
        for s in f.steps():
            assert (f.get("temp") == g + s * 2.0**20).all(), f"temp of step {s}"
            seen.append(s)
        print("end of stream", len(seen))
    except tapio.WriterGoneError as e:
        assert seen == list(range(e.steps)), (seen, e.steps)
        print("writer gone", e.steps)
        print(e)
"""


def follow_python(path):
    return run([sys.executable, "-c", PY_FOLLOW, path, TIMEOUT])


def follow_c(writer, ranks, path):
    return run(mpiexec(ranks, writer, path, "subfile", 0, "--follow", "--param",
                       f"writer_timeout={TIMEOUT}"))


def follow_fortran(ranks, path):
    exe = BUILD / "tests" / "follow_f"
    if not exe.exists():
        pytest.skip("no Fortran compiler: follow_f not built")
    return run(mpiexec(ranks, exe, path, TIMEOUT))


@pytest.mark.parametrize("ranks, extra", CASES[:2])
def test_reader_of_killed_writer(writer, tmp_path, ranks, extra):
    """Killed between steps: every reader reads each committed step (C and Python check every
    value), then reports the writer gone, not before writer_timeout seconds after the last
    commit and soon after; `tapio ls` says the dataset was not closed."""
    path = tmp_path / "out.tapio"
    extra = (*extra, *PARAMS.get(("subfile", ranks), []))
    printed = killed_dataset(writer, path, ranks, extra, mid_step=False)
    killed = time.monotonic()
    rc, out = follow_c(writer, ranks, path)
    waited = time.monotonic() - killed
    m = re.search(r"^writer gone (\d+)$", out, re.M)
    assert rc == 0 and m and "ok" in out.splitlines(), out
    steps = int(m.group(1))
    assert printed <= steps <= MANY_STEPS, out
    assert re.findall(r"^step (\d+)$", out, re.M) == [str(s) for s in range(steps)], out
    # Record times are whole seconds: gone after TIMEOUT - 1 s at the earliest.
    assert TIMEOUT - 1 <= waited <= TIMEOUT + 20, f"gone after {waited:.1f} s:\n{out}"
    assert ls_writer_line(path).startswith(f"not closed: {steps} steps committed, the last "), out
    # Long after the writer died, readers are told at once.
    rc, out = follow_python(path)
    assert rc == 0 and f"writer gone {steps}" in out, out
    assert f"the writer did not close it; {steps} steps committed" in out, out
    rc, out = follow_fortran(ranks, path)
    assert rc == 0 and f"writer gone {steps}" in out, out
    assert [int(s) for s in re.findall(r"^ *step +(\d+)$", out, re.M)] == list(range(steps)), out


def test_reader_of_closed_writer(writer, tmp_path):
    """A writer that closed: the readers get the end of the stream, `tapio ls` says closed."""
    path = tmp_path / "out.tapio"
    rc, out = run(mpiexec(1, *writer_args(writer, path, "subfile", 1, 2, 0)))
    assert rc == 0, out
    assert ls_writer_line(path) == "closed"
    rc, out = follow_c(writer, 1, path)
    assert rc == 0 and "end of stream 2" in out and "ok" in out.splitlines(), out
    rc, out = follow_python(path)
    assert rc == 0 and "end of stream 2" in out, out
    rc, out = follow_fortran(1, path)
    assert rc == 0 and "end of stream 2" in out, out


def verify_steps(writer, ranks, path):
    rc, steps, out = verify(writer, ranks, path, "subfile")
    assert rc == 0 and "ok" in out.splitlines() or steps == 0, out
    return steps


@pytest.mark.parametrize("ranks, extra", CASES)
def test_repair_after_crash(writer, tmp_path, ranks, extra):
    """Killed inside a step (a part of the next step may lie in tapio.md): with tapio.idx
    deleted, `tapio repair` rebuilds it and every committed step reads back exactly; with the
    rebuilt index damaged, it rebuilds it again and keeps the damaged one; an intact index is
    left alone; and the repaired dataset can be appended to."""
    path = tmp_path / "out.tapio"
    extra = (*extra, *PARAMS.get(("subfile", ranks), []))
    killed_dataset(writer, path, ranks, extra, mid_step=True)
    steps = verify_steps(writer, ranks, path)
    index = path / "tapio.idx"
    index.unlink()
    rc, out = run([TAPIO, "ls", path])
    assert rc == 1 and "`tapio repair` rebuilds a lost index" in out, out
    rc, out = run([TAPIO, "repair", path])
    assert rc == 0, out
    assert f"tapio.idx rebuilt from tapio.md: {steps} steps committed, not closed" in out, out
    assert verify_steps(writer, ranks, path) == steps
    assert ls_writer_line(path).startswith(f"not closed: {steps} steps committed"), out

    data = bytearray(index.read_bytes())
    data[64 + 64 + 20] ^= 0xFF  # step 1's record, followed by valid ones: a corrupt index
    index.write_bytes(data)
    rc, _, out = verify(writer, ranks, path, "subfile")
    assert rc == 2 and "index record 1 is corrupt (`tapio repair` rebuilds the index)" in out, out
    rc, out = run([TAPIO, "repair", path])
    assert rc == 0 and "the old index is kept as tapio.idx.damaged" in out, out
    assert (path / "tapio.idx.damaged").read_bytes() == bytes(data)
    assert verify_steps(writer, ranks, path) == steps
    rc, out = run([TAPIO, "repair", path])
    assert rc == 0 and "tapio.idx is intact" in out, out

    append_and_check(writer, path, "subfile", ranks, steps)
    assert ls_writer_line(path) == "closed"


def test_repair_refuses_what_it_cannot_rebuild(tmp_path):
    """No tapio.md, or one without commit records (a version 4 dataset): a clear error naming
    the dataset, and nothing written."""
    rc, out = run([TAPIO, "repair", tmp_path])
    assert rc == 1 and re.search(rf"dataset '{re.escape(str(tmp_path))}'.*tapio\.md", out), out
    v2 = os.path.join(os.path.dirname(__file__), "..", "data", "subfile_v2")
    rc, out = run([TAPIO, "repair", v2])
    assert rc == 1 and "format version 2" in out and "cannot be repaired" in out, out
