"""Crash consistency (crash_harness.py says how): the whole job killed with SIGKILL at seeded
moments inside steps, directly and through the buffering layers."""
import random
import time

import pytest

from crash_harness import ENGINES, MANY_STEPS, Writer, check_after_kill, out_path, writer_args


@pytest.mark.parametrize("ranks", [1, 4])
@pytest.mark.parametrize("engine", ENGINES)
def test_kill_mid_step(writer, tmp_path, engine, ranks):
    """(b) SIGKILL at seeded random delays after the first commit, the writer never sleeping,
    so the kill lands inside a step: in puts, data writes, metadata or the commit itself."""
    rng = random.Random(f"{engine}-{ranks}")
    for i, delay in enumerate(rng.uniform(0.0, 0.8) for _ in range(3)):
        path = tmp_path / str(i) / out_path(tmp_path, engine).name
        path.parent.mkdir()
        w = Writer(ranks, *writer_args(writer, path, engine, ranks, MANY_STEPS, 0))
        try:
            w.wait_committed(0)
            time.sleep(delay)
            committed = w.kill()
        finally:
            w.cleanup()
        assert w.proc.returncode != 0, f"writer finished before the kill: {w.seen}"
        check_after_kill(writer, ranks, path, engine, committed)


# The buffering layers (docs/design.md, "Buffering layers") hold bytes back from storage; in
# order, and flushed before a commit, so a kill still leaves every committed step exact.
LAYERS = ["--param", "layers=buffered,aligned", "--param", "layer_buffer_size=64KiB",
          "--param", "layer_align=64KiB"]


@pytest.mark.parametrize("engine", ["serial", "subfile"])
def test_kill_with_buffering_layers(writer, tmp_path, engine):
    """SIGKILL between steps and mid-step, writing through the buffered and aligned layers."""
    for i, (sleep_ms, delay) in enumerate([(300, None), (0, 0.3)]):
        path = tmp_path / str(i) / out_path(tmp_path, engine).name
        path.parent.mkdir()
        w = Writer(4, *writer_args(writer, path, engine, 4, MANY_STEPS, sleep_ms, *LAYERS))
        try:
            w.wait_committed(0 if delay is not None else 2)
            if delay is not None:
                time.sleep(delay)
            committed = w.kill()
        finally:
            w.cleanup()
        check_after_kill(writer, 4, path, engine, committed)
