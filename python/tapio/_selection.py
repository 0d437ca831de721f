"""What a put or get selects, checked and turned into the C API's terms: a box (start, count),
offsets into the flattened C-order variable, and for reads the steps (first, count)."""
from __future__ import annotations

from typing import Sequence, Union

import numpy as np

from ._errors import ArgumentError, ShapeError

Steps = Union[range, slice, Sequence[int], None]


def box(shape: Sequence[int], start: Sequence[int] | None, count: Sequence[int] | None,
        where: str) -> tuple[list[int], list[int]]:
    """start (default 0) and count (default: to the end) with one entry per dimension."""
    nd = len(shape)
    start = [0] * nd if start is None else [int(s) for s in start]
    if len(start) != nd:
        raise ShapeError(f"{where}: start has {len(start)} entries, the variable {nd} "
                         f"dimensions {tuple(shape)}", 4)
    count = [n - s for n, s in zip(shape, start)] if count is None else [int(c) for c in count]
    if len(count) != nd:
        raise ShapeError(f"{where}: count has {len(count)} entries, the variable {nd} "
                         f"dimensions {tuple(shape)}", 4)
    return start, count


def offsets_array(offsets, where: str) -> np.ndarray:
    """Element offsets as native uint64 (tapio copies the list when it is set)."""
    off = np.asarray(offsets)
    if off.ndim != 1 or (off.size and off.dtype.kind not in "iu"):
        raise ArgumentError(f"{where}: offsets must be a 1-d array of integers", 1)
    if off.size and off.dtype.kind == "i" and off.min() < 0:  # unsigned: never negative
        raise ArgumentError(f"{where}: offsets must not be negative", 1)
    return np.ascontiguousarray(off, dtype=np.uint64)


def step_range(steps: Steps, nsteps: int, where: str) -> tuple[int, int]:
    """(first, count) of a contiguous range of steps: range(a, b), slice(a, b) or (a, b)."""
    if isinstance(steps, slice):
        steps = range(*steps.indices(nsteps))
    elif not isinstance(steps, range):
        first, stop = (int(s) for s in steps)
        steps = range(first, stop)
    if steps.step != 1 or len(steps) == 0:
        raise ArgumentError(f"{where}: steps must be a non-empty range of consecutive steps, "
                            f"got {steps}", 1)
    return steps.start, len(steps)
