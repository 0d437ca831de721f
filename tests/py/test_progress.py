"""Long runs show their progress on a terminal and nothing when their output is not one:
`tapio convert` (steps) and tapio-bench (repetitions and methods), on one rank."""
import os
import pty
import select
import subprocess
import time

import pytest

from conftest import BUILD, MPI_ENV, mpirun

TIMEOUT = 120


def on_terminal(cmd):
    """Runs cmd with stderr on a pseudo-terminal: its exit code, stdout and what the terminal
    received."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=MPI_ENV)
    os.close(slave)
    received, deadline = b"", time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if select.select([master], [], [], 1)[0]:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            received += data
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.communicate(timeout=TIMEOUT)[0]
    return proc.returncode, out.decode(), received.decode()


def piped(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=MPI_ENV)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    path = tmp_path_factory.mktemp("progress") / "bands"
    mpirun(2, BUILD / "examples" / "bands", "write", path, "subfile")
    return path


def test_convert_progress(dataset, tmp_path):
    cmd = [BUILD / "tools" / "tapio", "convert", dataset, tmp_path / "a.nc"]
    code, out, terminal = on_terminal(cmd)
    assert code == 0 and out.startswith("converted ")
    steps = int(out.split("(")[1].split()[0])
    assert steps > 1
    for s in range(1, steps + 1):
        assert f"\r\x1b[Ktapio convert: step {s}/{steps}" in terminal
    assert terminal.endswith("\r\x1b[K")  # erased: the summary stands alone
    code, out, err = piped([BUILD / "tools" / "tapio", "convert", dataset, tmp_path / "b.nc"])
    assert (code, err) == (0, "") and out.startswith("converted ")


def test_bench_progress(tmp_path):
    bench = BUILD / "bench" / "tapio-bench"
    if not bench.exists():
        pytest.skip("tapio-bench is not built (TAPIO_BUILD_BENCH=OFF)")
    cmd = [bench, "licom", "--grid", "8x4x2", "--steps", "1", "--reps", "2", "--methods",
           "serial,raw", "--no-fsync", "--dir", tmp_path]
    code, out, terminal = on_terminal(cmd)
    assert code == 0, terminal
    for shown in ("repetition 1/2, serial", "repetition 1/2, raw", "repetition 2/2, serial",
                  "repetition 2/2, raw"):
        assert f"\r\x1b[Ktapio-bench licom: {shown}" in terminal
    assert terminal.endswith("\r\x1b[K")
    code, out, err = piped(cmd)
    assert (code, err) == (0, "")
