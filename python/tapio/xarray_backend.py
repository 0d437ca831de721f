"""xarray backend: ``xr.open_dataset(path, engine="tapio")`` for tapio subfile datasets and
NetCDF files, read lazily through tapio on one rank (MPI.COMM_SELF).

Record variables get the leading dimension ``time`` (one entry per step). Indexing a variable
reads only the box and the steps the index touches: a slice of one block of a subfile dataset
reads that block's bytes (plus the dataset's metadata), not the variable. With ``chunks={}``,
dask chunks are one step each (the unit tapio stores a record variable in) and follow the
blocks the writers put, as the first step stores them: along each dimension the chunks break
wherever a block starts or ends, so no chunk straddles two blocks of a block decomposition.

Joined variables (particles) appear as a converted NetCDF file holds them (docs/format.md,
"Joined arrays in NetCDF"): over a sample dimension holding every step's rows one after another,
with a count variable ``<dim>_count`` over ``time`` whose ``sample_dimension`` names it.

Options: ``parameters`` (tapio parameters, e.g. ``{"profile": "p.json"}``: written at
``ds.close()``), ``engine_name`` (the tapio engine; default: by path), ``config``.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Iterable

import numpy as np
import xarray as xr
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.core import indexing

from ._errors import UnsupportedError
from ._file import File, Variable

_STEPS_DIM = "time"


class TapioBackendArray(BackendArray):
    """One variable, read on demand: a basic index (ints and slices) becomes one tapio get of
    the bounding box and the steps it covers."""

    def __init__(self, file: File, lock: threading.Lock, var: Variable, nsteps: int) -> None:
        self._file, self._lock, self._name = file, lock, var.name
        self._record = var.is_record
        self.shape = ((nsteps,) if var.is_record else ()) + var.shape
        self.dtype = var.dtype

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.BASIC,
                                                  self._read)

    def _read(self, key: tuple) -> np.ndarray:
        starts, counts, strides, drop = [], [], [], []
        for axis, (k, n) in enumerate(zip(key, self.shape)):
            if isinstance(k, slice):
                first, stop, stride = k.indices(n)
                count = max(0, -(-(stop - first) // stride)) if stride > 0 else 0
                # The box read is the slice's span; a stride > 1 is taken from it afterwards.
                starts.append(first)
                counts.append((count - 1) * stride + 1 if count else 0)
                strides.append(stride)
            else:
                starts.append(int(k))
                counts.append(1)
                strides.append(1)
                drop.append(axis)
        if 0 in counts:
            data = np.empty(counts, dtype=self.dtype)
        else:
            data = self._get(starts, counts)
        data = data[tuple(slice(None, None, s) for s in strides)]
        return data.reshape([c for i, c in enumerate(data.shape) if i not in drop])

    def _get(self, starts: list[int], counts: list[int]) -> np.ndarray:
        with self._lock:
            if not self._record:
                return self._file.get(self._name, starts, counts)
            steps = range(starts[0], starts[0] + counts[0])
            return self._file.get(self._name, starts[1:], counts[1:], steps=steps)


class TapioRaggedArray(BackendArray):
    """A joined variable as a CF contiguous ragged array: rows of every step one after another;
    a basic index reads, from each step it touches, that step's rows."""

    def __init__(self, file: File, lock: threading.Lock, var: Variable,
                 lengths: list[int]) -> None:
        self._file, self._lock, self._name = file, lock, var.name
        self._lengths = lengths
        self.shape = (sum(lengths),) + var.shape[1:]
        self.dtype = var.dtype

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.BASIC,
                                                  self._read)

    def _read(self, key: tuple) -> np.ndarray:
        rows, rest = key[0], key[1:]
        first, stop, stride = (rows.indices(self.shape[0]) if isinstance(rows, slice)
                                else (int(rows), int(rows) + 1, 1))
        pieces, before = [], 0
        with self._lock:
            for step, n in enumerate(self._lengths):
                lo, hi = max(first, before), min(stop, before + n)
                if lo < hi:
                    pieces.append(self._file.get(self._name, (lo - before,) + (0,) * len(rest),
                                                 (hi - lo,) + self.shape[1:], step=step))
                before += n
        data = (np.concatenate(pieces) if pieces
                else np.empty((0,) + self.shape[1:], dtype=self.dtype))[::stride]
        data = data[(slice(None),) + tuple(rest)]
        return data if isinstance(rows, slice) else data[0]


class TapioBackendEntrypoint(BackendEntrypoint):
    """Opens tapio subfile datasets (directories holding tapio.idx) and NetCDF files."""

    description = "tapio subfile datasets and NetCDF (CDF-1/2/5) files, read lazily by tapio"
    url = "docs/api.md#python"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "mask_and_scale",
                               "decode_times", "parameters", "engine_name", "config")

    def open_dataset(self, filename_or_obj: Any, *, drop_variables: Iterable[str] | None = None,
                     mask_and_scale: bool = True, decode_times: bool = True,
                     parameters: dict | None = None, engine_name: str | None = None,
                     config: str | None = None) -> xr.Dataset:
        from mpi4py import MPI

        path = os.fspath(filename_or_obj)
        file = File(path, "r", MPI.COMM_SELF, engine_name, config, parameters)
        try:
            ds = _dataset(file, set(drop_variables or ()))
        except BaseException:
            file.close()
            raise
        ds = xr.decode_cf(ds, mask_and_scale=mask_and_scale, decode_times=decode_times)
        ds.set_close(file.close)
        return ds

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        try:
            path = os.fspath(filename_or_obj)
        except TypeError:
            return False
        if os.path.isdir(path):
            return os.path.exists(os.path.join(path, "tapio.idx"))
        try:
            with open(path, "rb") as f:
                return f.read(4) in (b"CDF\x01", b"CDF\x02", b"CDF\x05")
        except OSError:
            return False


def _dataset(file: File, drop: set[str]) -> xr.Dataset:
    lock = threading.Lock()
    nsteps = file.nsteps
    variables = {}
    samples: dict[str, list[int]] = {}  # joined variables' sample dimensions: steps' lengths
    for name, var in file.variables.items():
        if name in drop:
            continue
        if var.is_joined:
            variables.update(_ragged(file, lock, var, samples))
            continue
        dims = ((_STEPS_DIM,) if var.is_record else ()) + var.dims
        data = indexing.LazilyIndexedArray(TapioBackendArray(file, lock, var, nsteps))
        v = xr.Variable(dims, data, attrs=dict(var.attrs))
        chunks = _block_chunks(file, var)
        if var.is_record:
            chunks = ((1,) * nsteps,) + chunks
        v.encoding["preferred_chunks"] = dict(zip(dims, chunks))
        variables[name] = v
    return xr.Dataset(variables, attrs=dict(file.attrs))


def _ragged(file: File, lock: threading.Lock, var: Variable,
            samples: dict[str, list[int]]) -> dict[str, xr.Variable]:
    """A joined variable, and the count variable of its sample dimension if it is new."""
    lengths = [max((start[0] + count[0] for start, count in file.blocks(var.name, s)), default=0)
               for s in range(file.nsteps)]
    dim = var.dims[0]
    out = {}
    if dim not in samples:
        samples[dim] = lengths
        out[f"{dim}_count"] = xr.Variable(
            (_STEPS_DIM,), np.array(lengths, dtype=np.int64),
            attrs={"long_name": f"number of {dim} samples per step", "sample_dimension": dim})
    elif samples[dim] != lengths:
        raise UnsupportedError(f"joined variables over sample dimension '{dim}' hold different "
                               f"numbers of rows per step ('{var.name}': {lengths}, before: "
                               f"{samples[dim]}): one count variable cannot describe both", 12)
    data = indexing.LazilyIndexedArray(TapioRaggedArray(file, lock, var, lengths))
    v = xr.Variable(var.dims, data, attrs=dict(var.attrs))
    v.encoding["preferred_chunks"] = {dim: tuple(n for n in lengths if n) or (0,)}
    out[var.name] = v
    return out


def _block_chunks(file: File, var: Variable) -> tuple[tuple[int, ...], ...]:
    """Chunk sizes per dimension that split the variable wherever a stored block of its first
    step starts or ends; the whole dimension where blocks are offset lists or absent."""
    whole = tuple((n,) for n in var.shape)
    if var.is_record and file.nsteps == 0:
        return whole
    try:
        blocks = file.blocks(var.name, 0)
    except UnsupportedError:
        return whole
    chunks = []
    for d, n in enumerate(var.shape):
        cuts = {0, n}
        for start, count in blocks:
            cuts.update((start[d], start[d] + count[d]))
        edges = sorted(cuts)
        chunks.append(tuple(b - a for a, b in zip(edges, edges[1:])) or (n,))
    return tuple(chunks)
