"""Shared fixtures: where the build is, and how to run MPI programs with a timeout."""
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TAPIO_BUILD_DIR", ROOT / "build"))
SHARED = ROOT.parent / "shared"
# Open MPI refuses to run as root unless told, and runs more ranks than cores (up to 8 on 2
# here) only when allowed to oversubscribe. Set in the environment, which other MPIs ignore,
# rather than as flags: MPICH's mpiexec rejects --oversubscribe.
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")


def cmake_cache(name):
    """A value of the build's CMake cache (None if absent): the MPI it was configured with,
    so that programs linked with one MPI are not started or compiled with another's tools."""
    try:
        for line in (BUILD / "CMakeCache.txt").read_text().splitlines():
            if line.startswith(name + ":"):
                return line.split("=", 1)[1] or None
    except OSError:
        pass
    return None


def sanitizer_flags():
    """A sanitized libtapio (make test-asan) needs its sanitizer's runtime in a program the
    tests compile themselves, linked first."""
    sanitize = cmake_cache("TAPIO_SANITIZE")
    return [f"-fsanitize={sanitize}"] if sanitize else []


def readme_programs():
    """{language: source} of the README's shortest programs (its section "Using it")."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Using it"):text.index("## The `tapio` tool")]
    return dict(re.findall(r"```(c\+\+|c|fortran|python)\n(.*?)```", section, re.S))


MPIEXEC = os.environ.get("TAPIO_MPIEXEC") or cmake_cache("TAPIO_MPIEXEC") or "mpiexec.openmpi"
# Tests needing more ranks skip (MPICH busy-polls: only 1-2 ranks are usable on 2 cores).
MAX_RANKS = int(os.environ.get("TAPIO_MAX_RANKS") or 0)


def under_ptrace(env):
    """env for a program run under strace: LeakSanitizer cannot run under ptrace (make
    test-asan), so it is turned off there; other environments are unchanged."""
    return dict(env, ASAN_OPTIONS=env.get("ASAN_OPTIONS", "") + ":detect_leaks=0")


# The one kind of skip `make test` accepts: tests/skipped_tests.py lists every skip at its end and
# fails on any whose reason does not start with this (the same text there).
OPTIONAL_PEER = "optional peer: "


def skip_optional_peer(reason):
    """Skip for a peer CI need not have: the benchmark's PnetCDF, HDF5, ADIOS 1 and ADIOS2
    (scripts/setup.sh --bench), or the ranks another MPI can run on this machine."""
    pytest.skip(OPTIONAL_PEER + reason)


# Under AddressSanitizer (make test-asan), runs of two ranks or more unwind allocations by frame
# pointers and check no leaks: the full unwinding Open MPI's leak suppressions need (env.sh) is
# most of a sanitized process's time. One-rank runs and programs started without mpiexec still
# check leaks (docs/reliability.md, "Sanitizers"). `env` runs the program in its own process.
QUICK_ASAN = (["env", "ASAN_OPTIONS=" + os.environ.get("ASAN_OPTIONS", "")
               + ":fast_unwind_on_malloc=1:detect_leaks=0"]
              if "address" in (cmake_cache("TAPIO_SANITIZE") or "") else [])


def mpiexec(np, *args):
    """The command that runs args on np ranks with the chosen launcher."""
    if MAX_RANKS and np > MAX_RANKS:
        skip_optional_peer(f"another MPI: needs {np} ranks, TAPIO_MAX_RANKS={MAX_RANKS}")
    quick = QUICK_ASAN if np > 1 else []
    return [MPIEXEC, "-n", str(np), *quick, *map(str, args)]


def mpirun(np, *args, timeout=300, env=MPI_ENV, cwd=None):
    """Run a program with np ranks; fail the test on a non-zero exit."""
    cmd = mpiexec(np, *args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def writer():
    """tests/crash/crash_writer (crash_harness.py): the writer the crash tests kill."""
    exe = BUILD / "tests" / "crash" / "crash_writer"
    if not exe.exists():
        pytest.fail(f"no crash_writer in {BUILD}: build first or set TAPIO_BUILD_DIR")
    return exe


@pytest.fixture
def build():
    if not (BUILD / "examples" / "licom_demo").exists():
        pytest.fail(f"no build at {BUILD}: run `make build` first or set TAPIO_BUILD_DIR")
    return BUILD


@pytest.fixture(scope="session")
def python_binding():
    """The tapio Python package, which `make test` builds into .venv (pip install python/)."""
    try:
        import tapio
    except ImportError as e:
        pytest.fail(f"the tapio Python package is not installed ({e}): run `make test`, or "
                    f".venv/bin/pip install --no-build-isolation ./python "
                    f"-Ccmake.define.tapio_DIR={BUILD}/src/api")
    return tapio
