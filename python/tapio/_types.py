"""numpy dtypes and tapio element types, and the buffer rules of put and get: tapio reads and
writes the array's own memory (zero-copy) when it is C-contiguous and in native byte order; any
other array is copied once (or refused with ``allow_copy=False``), because the C API takes
host-order, C-order memory and a deferred put must point at memory that stays put. An array of
another numeric dtype than the variable's is converted by the C library (a put at once, into
tapio's own buffer; a get once read), as netCDF converts."""
from __future__ import annotations

import numpy as np

from ._errors import CopyRefusedError, TypeMismatchError

# tapio_type values (tapio_types.h) and the native dtypes that hold them.
_TYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "i8", 8: "u8", 9: "f4",
          10: "f8", 11: "S1"}
DTYPES = {code: np.dtype(name) for code, name in _TYPES.items()}
CODES = {dtype: code for code, dtype in DTYPES.items()}
TYPE_NAMES = {1: "int8", 2: "uint8", 3: "int16", 4: "uint16", 5: "int32", 6: "uint32",
              7: "int64", 8: "uint64", 9: "float32", 10: "float64", 11: "char"}


def type_code(dtype) -> int:
    """The tapio type of a dtype (byte order aside): TypeMismatchError if tapio has none."""
    dt = np.dtype(dtype)
    native = dt.newbyteorder("=") if dt.byteorder not in ("=", "|") else dt
    try:
        return CODES[native]
    except KeyError:
        raise TypeMismatchError(f"tapio has no element type for dtype {dt}", 3) from None


def needs_copy(a: np.ndarray) -> str | None:
    """Why tapio cannot use a's memory as it is, or None when it can."""
    if not a.dtype.isnative:
        return "it is not in native byte order"
    if not a.flags.c_contiguous:
        return "it is not C-contiguous (a strided view, or Fortran order)"
    return None


def put_buffer(array, allow_copy: bool, what: str) -> np.ndarray:
    """The array a put passes to C: array itself when possible, else one native C-order copy."""
    a = np.asarray(array)
    reason = needs_copy(a)
    if reason is None:
        return a
    if not allow_copy:
        raise CopyRefusedError(f"{what}: the array needs a copy because {reason}, and "
                               "allow_copy=False", 1)
    return np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]
