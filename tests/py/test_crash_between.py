"""Crash consistency (crash_harness.py says how): the whole job killed with SIGKILL between
steps and before any commit, and an append after a crash."""
import random
import time

import pytest

from crash_harness import (ENGINES, MANY_STEPS, RUN_TIMEOUT, Writer, append_and_check,
                           check_after_kill, check_refused_or_exact, known_committed,
                           out_path, writer_args)


@pytest.mark.parametrize("ranks", [1, 4])
@pytest.mark.parametrize("engine", ENGINES)
def test_kill_between_steps(writer, tmp_path, engine, ranks):
    """(a) SIGKILL right after `committed 2` is printed, while the writer sleeps."""
    path = out_path(tmp_path, engine)
    w = Writer(ranks, *writer_args(writer, path, engine, ranks, MANY_STEPS, 300))
    try:
        w.wait_committed(2)
        committed = w.kill()
    finally:
        w.cleanup()
    assert committed >= 3
    check_after_kill(writer, ranks, path, engine, committed)


@pytest.mark.parametrize("ranks", [1, 4])
@pytest.mark.parametrize("engine", ENGINES)
def test_kill_before_any_commit(writer, tmp_path, engine, ranks):
    """(c) SIGKILL as soon as the output appears, and a seeded few milliseconds later (during
    open or the first step): the reader either refuses it with a clear error naming it, or
    sees 0 steps; never garbage."""
    rng = random.Random(f"c-{engine}-{ranks}")
    for i, delay in enumerate([0.0, rng.uniform(0.001, 0.02)]):
        path = tmp_path / str(i) / out_path(tmp_path, engine).name
        path.parent.mkdir()
        w = Writer(ranks, *writer_args(writer, path, engine, ranks, MANY_STEPS, 0))
        try:
            deadline = time.monotonic() + RUN_TIMEOUT
            while not path.exists() and w.proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.0005)
            assert path.exists(), f"the writer never created {path}: {w.seen}"
            time.sleep(delay)
            committed = known_committed(engine, w.kill())
        finally:
            w.cleanup()
        check_refused_or_exact(writer, ranks, path, engine, committed)


@pytest.mark.parametrize("engine, ranks, append_ranks",
                         [("subfile", 4, 2), ("subfile", 1, 1), ("collective", 4, 2),
                          ("serial", 2, 1), ("serial-async", 2, 1),
                          ("subfile-async", 4, 2), ("collective-async", 4, 2)])
def test_append_after_crash(writer, tmp_path, engine, ranks, append_ranks):
    """Kill mid-step, append 2 steps (from another rank count where given), verify all."""
    path = out_path(tmp_path, engine)
    w = Writer(ranks, *writer_args(writer, path, engine, ranks, MANY_STEPS, 0))
    try:
        w.wait_committed(1)
        time.sleep(random.Random(engine).uniform(0.05, 0.4))
        committed = w.kill()
    finally:
        w.cleanup()
    before = check_after_kill(writer, ranks, path, engine, committed)
    append_and_check(writer, path, engine, append_ranks, before)
