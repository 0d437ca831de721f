"""Crash consistency (crash_harness.py says how): one rank of four killed with SIGKILL after
the first commit and inside open, and the job or one rank killed inside close."""
import random
import time

import pytest

from crash_harness import (ENGINES, MANY_STEPS, SLOW_MS, Writer, append_and_check,
                           check_after_kill, check_netcdf, check_refused_or_exact, engine_of,
                           kill_one_rank, known_committed, out_path, verify, writer_args)


@pytest.mark.parametrize("engine", ENGINES)
def test_kill_one_rank(writer, tmp_path, engine):
    """SIGKILL of one rank of four (a seeded choice, at a seeded moment after the first
    commit): MPI ends the job, and every step committed before reads back exactly."""
    rng = random.Random(f"one-{engine}")
    path = out_path(tmp_path, engine)
    w = Writer(4, *writer_args(writer, path, engine, 4, MANY_STEPS, 0))
    try:
        w.wait_committed(0)
        time.sleep(rng.uniform(0.0, 0.5))
        committed = kill_one_rank(w, rng)
    finally:
        w.cleanup()
    assert w.proc.returncode != 0, f"writer finished before the kill: {w.seen}"
    check_after_kill(writer, 4, path, engine, committed)


@pytest.mark.parametrize("engine", ENGINES)
def test_kill_one_rank_at_open(writer, tmp_path, engine):
    """One rank of four killed inside open (every open(2) of the I/O layer made slow, the kill
    a seeded moment after `opening`): the job ends, and the output is refused with a clear
    error or reads as 0 steps; never garbage."""
    rng = random.Random(f"open-{engine}")
    path = out_path(tmp_path, engine)
    w = Writer(4, *writer_args(writer, path, engine, 4, MANY_STEPS, 0,
                               "--slow-open-ms", SLOW_MS))
    try:
        w.wait_line("opening")
        time.sleep(rng.uniform(0.0, 0.3))
        committed = kill_one_rank(w, rng)
    finally:
        w.cleanup()
    assert committed == 0, f"the kill missed the open: {w.seen}"
    check_refused_or_exact(writer, 4, path, engine, committed)


@pytest.mark.parametrize("who, ranks", [("all", 1), ("all", 4), ("one", 4)])
@pytest.mark.parametrize("engine", ENGINES)
def test_kill_at_close(writer, tmp_path, engine, who, ranks):
    """The whole job, or one rank of four, killed inside close (every fsync(2) made slow, so
    the close's final syncs and the subfile end record are under way, the kill a seeded
    moment after `closing`): every step written reads back exactly, no more (async: at least
    the steps known committed), and an append adds two more. One rank killed may be one that
    has left close for MPI_Finalize while rank 0 still syncs: rank 0 then prints `closed`
    after the kill, which is the job's close all the same."""
    rng = random.Random(f"close-{engine}-{who}-{ranks}")
    path = out_path(tmp_path, engine)
    w = Writer(ranks, *writer_args(writer, path, engine, ranks, 3, 0,
                                   "--slow-fsync-ms", SLOW_MS))
    try:
        w.wait_line("closing 3")
        time.sleep(rng.uniform(0.0, 0.3))
        w.drain()
        closed_before_kill = "closed 3\n" in w.seen
        committed = kill_one_rank(w, rng) if who == "one" else w.kill()
    finally:
        w.cleanup()
    missed = closed_before_kill or (who == "all" and "closed 3\n" in w.seen)
    assert committed == 3 and not missed, f"the kill missed the close: {w.seen}"
    least = known_committed(engine, 3)
    rc, steps, out = verify(writer, ranks, path, engine)
    assert rc == 0 and steps is not None and least <= steps <= 3, out
    if engine_of(engine) != "subfile":
        assert check_netcdf(path, steps, steps) == steps
    if engine != "mpiio":
        append_and_check(writer, path, engine, ranks, steps)
