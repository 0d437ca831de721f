"""tapio: topology-aware parallel I/O for MPI programs, from Python.

    from mpi4py import MPI
    import numpy as np
    import tapio

    with tapio.open("out.nc", "w", comm=MPI.COMM_WORLD) as f:
        f.define("t", (ny, nx), np.float64, dims=("y", "x"))
        for s in range(3):
            with f.step():
                f.put("t", block, start=(row0, 0))     # zero-copy: block must not change
                                                        # until the step ends
    with tapio.open("out.nc", "r") as f:
        for s in f.steps():
            t = f.get("t", start=(0, col0), count=(ny, ncols))

Files are NetCDF (CDF-5) for paths ending in .nc, tapio subfile datasets (directories)
otherwise; ``engine=`` or the config file (``config=``, else $TAPIO_CONFIG) chooses another.
See docs/api.md, "Python".
"""
from __future__ import annotations

from typing import Any, Mapping

from . import _tapio
from ._errors import (ArgumentError, ChecksumError, ClosedError, CommError, ConfigError,
                      CopyRefusedError, Error, FormatError, InternalError, MPIError,
                      NotFoundError, OutOfMemoryError, RangeError, ShapeError, StateError,
                      StorageError, TypeMismatchError, UnsupportedError, WriterGoneError)
from ._file import Decomposition, File, Variable

__version__: str = _tapio.version()

__all__ = ["open", "File", "Variable", "Decomposition", "Error", "ArgumentError", "StateError",
           "TypeMismatchError", "ShapeError", "NotFoundError", "ConfigError", "StorageError",
           "FormatError", "ChecksumError", "MPIError", "OutOfMemoryError", "UnsupportedError",
           "InternalError", "RangeError", "ClosedError", "CommError", "CopyRefusedError",
           "WriterGoneError"]


def open(path: str, mode: str = "r", comm: Any = None, engine: str | None = None,
         config: str | None = None, parameters: Mapping[str, Any] | None = None) -> File:
    """Open a tapio file or dataset (collective over ``comm``).

    mode: "w" (create, truncating), "r" (read) or "a" (append steps).
    comm: an mpi4py communicator (default ``MPI.COMM_WORLD``).
    engine: "collective", "subfile", "mpiio" or "serial"; None chooses by path (".nc":
        collective; otherwise a subfile dataset directory). A config rule overrides it.
    config: a TOML rules file (docs/tuning.md); None uses $TAPIO_CONFIG, if set.
    parameters: tapio parameters, e.g. {"profile": "p.json"} (docs/tuning.md).
    """
    return File(path, mode, comm, engine, config, parameters)
