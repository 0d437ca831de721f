"""An open tapio file: definitions, steps, puts and gets over the C API.

Collective calls (open, each step's begin and end, get, close) must be made by every rank of
the communicator in the same order, as in C (docs/api.md section 4)."""
from __future__ import annotations

import contextlib
import time
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from . import _tapio
from ._attrs import Attributes
from ._errors import (ArgumentError, ClosedError, CommError, CopyRefusedError, Error,
                      ShapeError, StateError, UnsupportedError, WriterGoneError)
from ._selection import Steps, box, offsets_array, step_range
from ._types import DTYPES, address, needs_copy, put_buffer, type_code

_MODES = {"w": 0, "r": 1, "a": 2}
_STEP_OK, _END_OF_STREAM, _NOT_READY, _WRITER_GONE = 0, 1, 2, 3


class Variable:
    """A variable of an open file: ``name``, ``dtype``, ``shape`` (C order, without steps),
    ``dims``, ``is_record`` (one value per step), ``is_joined`` (a joined array: each rank
    puts its own number of rows per step; ``shape[0]`` is the current step's length when
    reading) and ``attrs``."""

    def __init__(self, file: "File", handle: int) -> None:
        self._file, self._handle = file, handle
        name, code, shape, dims, is_record, is_joined = _tapio.var_info(handle)
        self.name: str = name
        self.dtype: np.dtype = DTYPES[code]
        self.shape: tuple[int, ...] = tuple(shape)
        self.dims: tuple[str, ...] = tuple(dims)
        self.is_record: bool = is_record
        self.is_joined: bool = is_joined
        self.attrs = Attributes(file._io, name, file._check_definable)

    def __repr__(self) -> str:
        kind = "joined" if self.is_joined else "record" if self.is_record else "fixed"
        return f"<tapio.Variable {self.name} {self.dtype} {dict(zip(self.dims, self.shape))} {kind}>"


class Decomposition:
    """This rank's elements of every variable of one shape, made once by
    :meth:`File.decomposition` and given as ``offsets=`` to any number of puts and gets of
    variables of that shape: tapio reads and checks the offsets once, not at every put (as
    PIO's decompositions, docs/api.md §2.2.1). ``shape``, ``size`` (this rank's elements).
    It lives as long as its file."""

    def __init__(self, file: "File", shape: tuple[int, ...], handle: int) -> None:
        self._file, self.shape, self._handle = file, shape, handle
        self.size: int = _tapio.decomp_size(handle)

    def __repr__(self) -> str:
        return f"<tapio.Decomposition {self.shape} ({self.size} elements here)>"


class File:
    """A tapio file or dataset, opened by :func:`tapio.open`. Use it as a context manager:
    leaving the ``with`` block closes it (collectively)."""

    def __init__(self, path: str, mode: str, comm: Any, engine: str | None,
                 config: str | None, parameters: Mapping[str, Any] | None) -> None:
        if mode not in _MODES:
            raise ArgumentError(f"tapio.open: mode must be 'w', 'r' or 'a', got {mode!r}", 1)
        self.path, self.mode = str(path), mode
        self._ctx = _tapio.init_f(_fortran_handle(comm), config)
        self._engine: int | None = None
        self._closed = False
        self._in_step = False
        self._keep: list[np.ndarray] = []  # put buffers, alive until their step is written
        try:
            self._io = _tapio.declare_io(self._ctx, f"python:{self.path}")
            if engine:
                _tapio.io_set_engine(self._io, engine)
            for key, value in (parameters or {}).items():
                _tapio.io_set_parameter(self._io, key, _param_text(value))
            if mode != "w":  # reading and appending open now; writing once defined
                self._engine = _tapio.open(self._io, self.path, _MODES[mode])
        except BaseException:
            _tapio.finalize(self._ctx)
            raise
        self.attrs = Attributes(self._io, None, self._check_definable)

    # ---- definitions -----------------------------------------------------------------------
    def define(self, name: str, shape: Sequence[int], dtype: Any = np.float64,
               dims: Sequence[str] | None = None, fixed: bool = False,
               attrs: Mapping[str, Any] | None = None, joined: bool = False) -> Variable:
        """Define a variable of global ``shape`` (C order; last index fastest). ``dims`` names
        its dimensions (default ``dim<length>``); ``fixed=True`` gives one value per file
        instead of one per step. ``joined=True`` makes a joined array (particles): give
        ``shape[0] = 0``; each rank's put holds its own number of rows, placed after the lower
        ranks' (default first dimension name ``<name>_sample``). Define everything before the
        first step."""
        self._check_definable()
        handle = _tapio.define_variable(self._io, name, type_code(dtype),
                                        [int(n) for n in shape],
                                        None if dims is None else list(dims), fixed, joined)
        var = Variable(self, handle)
        for key, value in (attrs or {}).items():
            var.attrs[key] = value
        return var

    def define_dimension(self, name: str, length: int) -> None:
        """Declare a dimension (``length`` 0: the unlimited one, which steps go along). A
        NetCDF file numbers the declared dimensions first, in declaration order, and writes
        them even if no variable uses them (docs/api.md section 1.3, "Dimension order")."""
        self._check_definable()
        _tapio.define_dimension(self._io, name, int(length))

    @property
    def dimensions(self) -> dict[str, int]:
        """The declared dimensions in order, name to length (0: unlimited); after opening for
        reading or appending, the file's."""
        self._check_open()
        return dict(_tapio.dimensions(self._io))

    @property
    def variables(self) -> dict[str, Variable]:
        """Every variable, by name, in definition (file) order."""
        self._check_open()
        return {n: self[n] for n in _tapio.variable_names(self._io)}

    def decomposition(self, shape: Sequence[int], offsets: Any) -> Decomposition:
        """A :class:`Decomposition` of variables of ``shape``: this rank's element ``offsets``
        into the flattened (C-order) variable, in memory order (local, no collective)."""
        self._check_open()
        off = offsets_array(offsets, f"decomposition for '{self.path}'")
        dims = tuple(int(n) for n in shape)
        return Decomposition(self, dims,
                             _tapio.decomp_from_offsets(self._ctx, list(dims), off.size,
                                                        address(off)))

    def _set_offsets(self, var: Variable, offsets: Any, where: str) -> int:
        """var's selection for its next put or get: a Decomposition (of this file) or an array
        of element offsets; the number of elements."""
        if isinstance(offsets, Decomposition):
            if offsets._file is not self:
                raise ArgumentError(f"{where}: the decomposition was made for another file", 1)
            _tapio.var_set_decomp(var._handle, offsets._handle)
            return offsets.size
        off = offsets_array(offsets, where)
        _tapio.var_set_offsets(var._handle, off.size, address(off))
        return int(off.size)

    def __getitem__(self, name: str) -> Variable:
        self._check_open()
        return Variable(self, _tapio.inquire_variable(self._io, name))

    def __contains__(self, name: str) -> bool:
        self._check_open()
        return name in _tapio.variable_names(self._io)

    # ---- steps -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def step(self) -> Iterator[int]:
        """Write one step (collective): ``with f.step(): f.put(...)``. Yields the step index.
        The step ends when the block ends, even if it raised on this rank (so no rank waits
        for it). A block that raised, or a put refused, on any rank fails the step on every
        rank: nothing of it is committed, and the other ranks get tapio.Error ("step N is not
        committed"), the raising rank its own exception."""
        self._check_writable()
        if self._engine is None:
            self._engine = _tapio.open(self._io, self.path, _MODES[self.mode])
        _tapio.begin_step(self._engine)
        self._in_step = True
        raised = False
        try:
            yield _tapio.current_step(self._engine)
        except BaseException as e:
            raised = True
            self._fail_step(e)
            raise
        finally:
            self._in_step = False
            try:
                _tapio.end_step(self._engine)
            except Error:
                if not raised:  # else this rank's own exception is the one to see
                    raise
            finally:
                self._keep.clear()

    def steps(self, timeout: float | None = None) -> Iterator[int]:
        """Read step by step (collective): ``for step in f.steps(): a = f.get("t")``. A get
        inside the loop reads the current step. While a subfile dataset is still being written,
        waits up to ``timeout`` seconds (None: as long as the writer lives) for the writer's
        next step. After the last committed step of a dataset whose writer did not close it and
        committed nothing for the ``writer_timeout`` parameter's seconds, raises
        tapio.WriterGoneError (its ``steps``: the steps committed, all of them yielded)."""
        self._check_mode("r", "steps()")
        while True:
            deadline = None if timeout is None else time.monotonic() + timeout
            status = _tapio.begin_step(self._engine)
            while status == _NOT_READY:
                if deadline is not None and time.monotonic() > deadline:
                    return
                time.sleep(0.05)
                status = _tapio.begin_step(self._engine)
            if status == _END_OF_STREAM:
                return
            if status == _WRITER_GONE:
                raise WriterGoneError(self.path, _tapio.steps(self._engine))
            self._in_step = True
            try:
                yield _tapio.current_step(self._engine)
            finally:
                self._in_step = False
                _tapio.end_step(self._engine)

    @property
    def nsteps(self) -> int:
        """Steps in the file (read), or written so far (write, append)."""
        self._check_open()
        return 0 if self._engine is None else _tapio.steps(self._engine)

    def blocks(self, name: str, step: int = 0) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The blocks the file stores of variable ``name`` at ``step`` (read mode, local), as
        ``(start, count)`` pairs: a subfile dataset's puts as written, or a NetCDF variable's
        whole shape. A block written as an offset list raises tapio.UnsupportedError."""
        self._check_mode("r", "blocks()")
        blocks = _tapio.var_blocks(self._engine, self[name]._handle, step)
        return [(tuple(start), tuple(count)) for start, count in blocks]

    @property
    def current_step(self) -> int:
        self._check_open()
        return 0 if self._engine is None else _tapio.current_step(self._engine)

    @property
    def engine(self) -> str:
        """The engine that opened the file ("collective", "subfile", ...)."""
        self._check_open()
        return "" if self._engine is None else _tapio.engine_name(self._engine)

    # ---- data --------------------------------------------------------------------------------
    def put(self, name: str, array: Any, start: Sequence[int] | None = None,
            offsets: Any = None, allow_copy: bool = True) -> None:
        """Queue this rank's piece of ``name`` for the current step (local; written when the
        step ends). Without ``start`` or ``offsets``, the array is the whole variable. With
        ``start``, it is the block at start of the array's shape. With ``offsets``, its
        elements go to those offsets of the flattened (C-order) variable, in order (a PIO-style
        map: a 1-d array of the same length), or those of a :class:`Decomposition` made once
        for many puts (``f.decomposition(shape, offsets)``). For a joined variable, the array
        is this rank's rows (any number, 0 included: ``shape[1:]`` the variable's), and tapio
        places them.

        The array's memory is used as it is (no copy) when it is C-contiguous and in native
        byte order; otherwise it is copied once, or refused if ``allow_copy`` is False. An
        array of another numeric dtype (float32 or int32 to a float64 variable) is converted,
        as netCDF does: a value the variable's type cannot hold raises RangeError.

        A put refused on one rank (a selection outside the shape, a wrong shape, a value out
        of range) raises there and fails the step on every rank: nothing of it is committed."""
        where = f"put of '{name}' to '{self.path}'"
        self._check_writable()
        if not self._in_step:
            raise StateError(f"{where}: a put must be inside `with f.step():`", 2)
        try:
            self._queue_put(self[name], put_buffer(array, allow_copy, where), start, offsets,
                            where)
        except BaseException as e:  # the C library fails the step for its own refusals
            self._fail_step(e)
            raise

    def get(self, name: str, start: Sequence[int] | None = None,
            count: Sequence[int] | None = None, *, offsets: Any = None, step: int | None = None,
            steps: Steps = None, out: np.ndarray | None = None, dtype: Any = None,
            allow_copy: bool = True) -> np.ndarray:
        """Read a selection of ``name`` (collective: every rank calls get, each with its own
        selection, possibly empty). The box ``start``/``count`` defaults to the whole variable;
        ``offsets`` (an array or a :class:`Decomposition`) selects elements of the flattened
        variable instead (a 1-d result).

        For a record variable: inside ``for step in f.steps()`` the current step; otherwise
        ``step=k`` reads one step and ``steps=range(a, b)`` (or ``slice``) a range, as a leading
        dimension; with neither, every step. Fixed variables ignore steps.

        The result is read straight into a new array of the variable's dtype, or into ``out``
        (C-contiguous, native byte order and the result's size: no copy; another ``out`` is
        filled through a copy, or refused if ``allow_copy`` is False). An ``out`` of another
        numeric dtype gets the values converted, as netCDF does; one its dtype cannot hold
        raises RangeError on every rank. ``dtype`` asks for a new array of that numeric dtype,
        converted the same way (it cannot be given with ``out``)."""
        where = f"get of '{name}' from '{self.path}'"
        self._check_mode("r", "get()")
        var = self[name]
        if dtype is not None and out is not None:
            raise ArgumentError(f"{where}: give dtype or out, not both", 1)
        result_dtype = var.dtype if dtype is None else DTYPES[type_code(dtype)]
        if offsets is not None:
            shape: tuple[int, ...] = (self._set_offsets(var, offsets, where),)
        else:
            start, count = box(self._shape_at(var, step, steps, where), start, count, where)
            _tapio.var_set_selection(var._handle, start, count)
            shape = tuple(count)
        shape = self._select_steps(var, step, steps, shape, where)
        target = self._get_target(result_dtype, shape, out, allow_copy, where)
        _tapio.get(self._engine, var._handle, type_code(target.dtype), address(target))
        _tapio.perform_gets(self._engine)
        if out is None:
            return target
        if target is not out:
            out[...] = target
        return out

    # ---- closing -----------------------------------------------------------------------------
    def close(self) -> None:
        """Close (collective): a file opened for writing and never stepped is still created
        with its definitions. Writes the profile, if the ``profile`` parameter names one.
        Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._engine is None and self.mode == "w":
                self._engine = _tapio.open(self._io, self.path, _MODES["w"])
            if self._engine is not None:
                _tapio.close(self._engine)
        finally:
            self._engine = None
            _tapio.finalize(self._ctx)

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.mode
        return f"<tapio.File {self.path!r} ({state})>"

    # ---- helpers -----------------------------------------------------------------------------
    def _queue_put(self, var: Variable, a: np.ndarray, start, offsets, where: str) -> None:
        """Queue ``a`` with its selection given in the same C call where it is a box, so no
        selection of an earlier put is ever used; keep ``a`` until the step ends."""
        if var.is_joined:
            if start is not None or offsets is not None:
                raise ArgumentError(f"{where}: a joined variable's rows are placed by tapio: "
                                    "give neither start nor offsets", 1)
            if a.ndim != len(var.shape) or a.shape[1:] != var.shape[1:]:
                raise ShapeError(f"{where}: shape mismatch: a joined variable of shape "
                                 f"(n, {', '.join(map(str, var.shape[1:]))}) takes arrays of "
                                 f"that shape, not {a.shape}", 4)
            _tapio.var_set_joined_count(var._handle, a.shape[0])
            _tapio.put(self._engine, var._handle, type_code(a.dtype), address(a))
        elif offsets is not None:
            if not isinstance(offsets, Decomposition):
                offsets = offsets_array(offsets, where)  # once: _set_offsets keeps it as it is
            if a.size != offsets.size:
                raise ShapeError(f"{where}: shape mismatch: the array has {a.size} elements, "
                                 f"offsets {offsets.size}", 4)
            self._set_offsets(var, offsets, where)
            _tapio.put(self._engine, var._handle, type_code(a.dtype), address(a))
        else:
            if start is None and a.shape != var.shape:
                raise ShapeError(f"{where}: shape mismatch: the array's shape {a.shape} is not "
                                 f"the variable's {var.shape} (give start= to put a block)", 4)
            if a.ndim != len(var.shape):
                raise ShapeError(f"{where}: shape mismatch: a {a.ndim}-d array for a "
                                 f"{len(var.shape)}-d variable", 4)
            begin, count = box(var.shape, start, a.shape, where)
            _tapio.put_sel(self._engine, var._handle, begin, count, type_code(a.dtype),
                           address(a))
        self._keep.append(a)

    def _fail_step(self, e: BaseException) -> None:
        """This rank's reason to commit nothing of the open write step: its end_step then
        fails on every rank (tapio_fail_step)."""
        if self._in_step:
            code = e.code if isinstance(e, Error) and e.code else StateError.code
            _tapio.fail_step(self._engine, code, f"{type(e).__name__}: {e}")

    def _shape_at(self, var: Variable, step, steps, where: str) -> tuple[int, ...]:
        """The shape a get's box lies in: a joined variable's length is that of the step read
        (one step at a time, since steps differ)."""
        if not var.is_joined:
            return var.shape
        if steps is not None or (step is None and not self._in_step):
            raise UnsupportedError(f"{where}: a joined variable is read one step at a time "
                                   "(step=k, or inside `for step in f.steps()`): its length "
                                   "changes per step", 12)
        if step is None:
            return var.shape
        blocks = _tapio.var_blocks(self._engine, var._handle, int(step))
        length = max((start[0] + count[0] for start, count in blocks), default=0)
        return (length, *var.shape[1:])

    def _select_steps(self, var: Variable, step, steps, shape, where: str) -> tuple[int, ...]:
        """Sets the variable's step selection; the result's shape with its steps."""
        if not var.is_record:
            return shape
        if steps is not None:
            first, n = step_range(steps, self.nsteps, where)
            _tapio.var_set_step_selection(var._handle, first, n)
            return (n, *shape)
        if step is None and not self._in_step:
            _tapio.var_set_step_selection(var._handle, 0, max(self.nsteps, 1))
            return (self.nsteps, *shape)
        first = _tapio.current_step(self._engine) if step is None else int(step)
        _tapio.var_set_step_selection(var._handle, first, 1)
        return shape

    @staticmethod
    def _get_target(dtype: np.dtype, shape, out, allow_copy: bool, where: str) -> np.ndarray:
        if out is None:
            return np.empty(shape, dtype=dtype)
        if out.size != int(np.prod(shape)):
            raise ShapeError(f"{where}: shape mismatch: out has {out.size} elements, the "
                             f"selection {int(np.prod(shape))} {shape}", 4)
        dtype = DTYPES[type_code(out.dtype)]  # tapio converts between numeric types
        reason = needs_copy(out) or (None if out.flags.writeable else "it is read-only")
        if reason is None:
            return out
        if not allow_copy:
            raise CopyRefusedError(f"{where}: out needs a copy because {reason}, and "
                                   "allow_copy=False", 1)
        return np.empty(shape, dtype=dtype)

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError(f"file '{self.path}' is closed", 2)

    def _check_mode(self, mode: str, what: str) -> None:
        self._check_open()
        if self.mode != mode:
            raise StateError(f"{what} on '{self.path}' needs mode '{mode}', the file is open "
                             f"with '{self.mode}'", 2)

    def _check_writable(self) -> None:
        self._check_open()
        if self.mode == "r":
            raise StateError(f"'{self.path}' is open for reading: it cannot be written", 2)

    def _check_definable(self) -> None:
        self._check_open()
        if self._engine is not None:
            raise StateError(f"'{self.path}': definitions (variables, attributes) must come "
                             "before the first step", 2)


def _fortran_handle(comm: Any) -> int:
    """The Fortran handle of an mpi4py communicator (tapio_init_f converts it back)."""
    if comm is None:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
    py2f = getattr(comm, "py2f", None)
    if py2f is None or type(comm).__module__ != "mpi4py.MPI":
        raise CommError(f"comm must be an mpi4py communicator (mpi4py.MPI.Comm), got "
                        f"{type(comm).__name__}", 1)
    return int(py2f())


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
