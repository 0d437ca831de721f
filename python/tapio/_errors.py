"""tapio's exceptions: one class per C status code, all subclasses of :class:`tapio.Error`.

Each carries the C library's message (``tapio_last_error()``: the call, the file, the variable,
the step and the rank) and its status code. They also derive from the closest built-in
exception, so ``except ValueError`` catches a bad argument or shape as usual.
"""
from __future__ import annotations


class Error(RuntimeError):
    """A tapio call failed. ``code`` is the C status (``tapio_status``), ``message`` the text."""

    code: int = 0

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ArgumentError(Error, ValueError):
    """TAPIO_ERR_ARG: a bad argument (name, handle, mode, a closed file's handle)."""
    code = 1


class StateError(Error):
    """TAPIO_ERR_STATE: the call is not valid now (a put outside a step, in read mode...)."""
    code = 2


class TypeMismatchError(Error, TypeError):
    """TAPIO_ERR_TYPE: a dtype tapio has no type for, or text (``S1``) and numbers mixed: numeric
    dtypes convert to a numeric variable's type, text does not."""
    code = 3


class ShapeError(Error, ValueError):
    """TAPIO_ERR_SHAPE: a selection outside the shape, an array of the wrong shape, overlapping
    blocks."""
    code = 4


class NotFoundError(Error, LookupError):
    """TAPIO_ERR_NOT_FOUND: no such variable, attribute, step or file."""
    code = 5


class ConfigError(Error):
    """TAPIO_ERR_CONFIG: the config file or a parameter is invalid."""
    code = 6


class StorageError(Error):
    """TAPIO_ERR_IO: a system call on the file failed."""
    code = 7


class FormatError(Error):
    """TAPIO_ERR_FORMAT: not a NetCDF file or tapio dataset, or truncated."""
    code = 8


class ChecksumError(Error):
    """TAPIO_ERR_CHECKSUM: stored data does not match its checksum."""
    code = 9


class MPIError(Error):
    """TAPIO_ERR_MPI: an MPI call failed."""
    code = 10


class OutOfMemoryError(Error, MemoryError):
    """TAPIO_ERR_NOMEM: an allocation failed."""
    code = 11


class UnsupportedError(Error):
    """TAPIO_ERR_UNSUPPORTED: a valid request this engine or format cannot do."""
    code = 12


class InternalError(Error):
    """TAPIO_ERR_INTERNAL: a bug in tapio; please report it with the message."""
    code = 13


class RangeError(Error, ValueError):
    """TAPIO_ERR_RANGE: a value does not fit the type it is converted to (a put of 1e10 to an
    int16 variable, a get of NaN into an int32 array), like netCDF's NC_ERANGE."""
    code = 14


class ClosedError(StateError):
    """The file was closed: no call on it is valid any more."""


class CommError(ArgumentError, TypeError):
    """``comm`` is not an mpi4py communicator."""


class CopyRefusedError(ArgumentError):
    """The array needs a copy (non-contiguous, or not in native byte order) and the call was
    given ``allow_copy=False``."""


class WriterGoneError(Error):
    """Reading step by step (``File.steps()``), after the last committed step of a subfile
    dataset whose writer did not close it and committed nothing for ``writer_timeout`` seconds
    (it was killed): C's ``TAPIO_STEP_WRITER_GONE``. ``steps`` is the number of steps committed
    (all of them were read); ``path`` the dataset."""

    def __init__(self, path: str, steps: int) -> None:
        super().__init__(f"dataset '{path}': the writer did not close it; {steps} step"
                         f"{'' if steps == 1 else 's'} committed, all read (no commit for "
                         f"writer_timeout seconds: the writer was killed or is stuck)")
        self.path, self.steps = path, steps


_BY_CODE = {cls.code: cls for cls in (
    ArgumentError, StateError, TypeMismatchError, ShapeError, NotFoundError, ConfigError,
    StorageError, FormatError, ChecksumError, MPIError, OutOfMemoryError, UnsupportedError,
    InternalError, RangeError)}


def from_status(code: int, message: str) -> Error:
    """The exception for a failed C call (used by the extension module)."""
    return _BY_CODE.get(code, Error)(message, code)
