"""Attributes as a dict-like object: ``f.attrs["title"] = "run 1"``, ``f["t"].attrs["units"]``.

Strings are stored as NetCDF text (char), numbers as 1-d arrays of their dtype; a one-element
array reads back as a numpy scalar, as netCDF4-python does."""
from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any, Callable

import numpy as np

from . import _tapio
from ._errors import UnsupportedError
from ._types import DTYPES, address, type_code

_CHAR = 11


class Attributes(MutableMapping):
    """The attributes of a file (global) or of one variable."""

    def __init__(self, io: int, var: str | None, writable: Callable[[], None]) -> None:
        self._io, self._var, self._writable = io, var, writable

    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        code, count = _tapio.inquire_attribute(self._io, self._var, name)
        values = np.empty(count, dtype=DTYPES[code])
        _tapio.read_attribute(self._io, self._var, name, address(values))
        if code == _CHAR:
            return values.tobytes().decode("utf-8", errors="replace")
        return values[0] if count == 1 else values

    def __setitem__(self, name: str, value: Any) -> None:
        self._writable()
        if isinstance(value, str):
            data = np.frombuffer(value.encode("utf-8"), dtype="S1")
        else:
            data = np.ascontiguousarray(np.atleast_1d(value))
            data = data.astype(data.dtype.newbyteorder("="), copy=False)
        # tapio copies the values now: data need not outlive the call.
        _tapio.define_attribute(self._io, self._var, name, type_code(data.dtype), data.size,
                                address(data))

    def __delitem__(self, name: str) -> None:
        raise UnsupportedError("tapio attributes cannot be deleted, only replaced", 12)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return f"Attributes({dict(self)!r})"

    def _names(self) -> list[str]:
        return _tapio.attribute_names(self._io, self._var)
