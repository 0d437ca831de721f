"""python -m tapio ls PATH [--json] | dump PATH VAR [--step S] [--start a,b] [--count a,b]
[--json] | report PROFILE.json [B.json] [--plot OUT] [--html OUT]: the `tapio` command's ls and
dump, through the Python binding (one rank, any file or dataset tapio reads), and its report
(tapio/report.py). Exit codes as the command's: 0 ok, 1 error (on stderr), 2 bad usage."""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ._errors import Error
from ._file import File
from ._types import TYPE_NAMES, type_code


def _type_name(dtype: np.dtype) -> str:
    return TYPE_NAMES[type_code(dtype)]


def _number(x, json_mode: bool = False) -> str:
    if isinstance(x, (np.floating, float)):
        if json_mode and not np.isfinite(x):
            return "null"
        return "%.9g" % x if np.asarray(x).dtype == np.float32 else "%.17g" % x
    return str(int(x))


def _attr_text(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    return ", ".join(_number(x) for x in np.atleast_1d(value))


def _attr_json(value) -> dict:
    if isinstance(value, str):
        return {"type": "char", "value": value}
    arr = np.atleast_1d(value)
    return {"type": _type_name(arr.dtype), "value": [json.loads(_number(x, True)) for x in arr]}


def _dimensions(f: File) -> dict[str, int]:
    """Dimension lengths by name, as the NetCDF header orders them: time first, if any."""
    dims: dict[str, int] = {}
    if any(v.is_record for v in f.variables.values()):
        dims["time"] = f.nsteps
    for v in f.variables.values():
        dims.update({d: n for d, n in zip(v.dims, v.shape) if d not in dims})
    return dims


def _format(f: File) -> str:
    """What the command prints as the format: the dataset kind, or the NetCDF version byte."""
    if f.engine == "subfile":
        return "tapio subfile dataset"
    with open(f.path, "rb") as header:
        version = header.read(4)[3:]
    return {b"\x01": "CDF-1 (classic)", b"\x02": "CDF-2 (64-bit offset)"}.get(
        version, "CDF-5 (64-bit data)")


def ls(f: File, as_json: bool) -> None:
    variables, dims = f.variables, _dimensions(f)
    if as_json:
        out = {"file": f.path, "format": _format(f), "numrecs": f.nsteps,
               "dimensions": {d: {"length": n, "unlimited": d == "time"} for d, n in dims.items()},
               "attributes": {k: _attr_json(v) for k, v in f.attrs.items()}, "variables": {}}
        for name, v in variables.items():
            names = (("time",) if v.is_record else ()) + v.dims
            shape = ((f.nsteps,) if v.is_record else ()) + v.shape
            entry = {"type": _type_name(v.dtype), "dimensions": list(names),
                     "shape": list(shape), "record": v.is_record}
            if v.is_record:
                entry["steps"] = f.nsteps
            entry["attributes"] = {k: _attr_json(a) for k, a in v.attrs.items()}
            out["variables"][name] = entry
        print(json.dumps(out, indent=2))
        return
    print(f"file: {f.path}\nformat: {_format(f)}")
    if dims:
        print("dimensions:")
    for d, n in dims.items():
        print(f"  {d} = UNLIMITED ({n} currently)" if d == "time" else f"  {d} = {n}")
    if len(f.attrs):
        print("global attributes:")
    for k, a in f.attrs.items():
        print(f"  {_attr_type(a):<8} {k} = {_attr_text(a)}")
    if variables:
        print("variables:")
    width = min(max((len(n) for n in variables), default=0), 32)
    for name, v in variables.items():
        names = (("time",) if v.is_record else ()) + v.dims
        shape = ((f.nsteps,) if v.is_record else ()) + v.shape
        text = "[" + ", ".join(f"{d}={n}" for d, n in zip(names, shape)) + "]" if names else "scalar"
        line = f"  {_type_name(v.dtype):<8} {name:<{width}}  {text}"
        if v.is_record:
            line += f"  {f.nsteps} step{'' if f.nsteps == 1 else 's'}"
        print(line)
        for k, a in v.attrs.items():
            print(f"      {_attr_type(a):<8} {k} = {_attr_text(a)}")


def _attr_type(value) -> str:
    return "char" if isinstance(value, str) else _type_name(np.atleast_1d(value).dtype)


def _json_values(values: np.ndarray):
    """Nested lists of numbers formatted as the command formats them (NaN as null)."""
    if values.ndim == 0:
        return json.loads(_number(values[()], True))
    return [_json_values(v) for v in values]


def _label(name: str, first: list[int], count: tuple[int, ...], row: int) -> str:
    """A row's indices in the variable, as the command prints them (`ncdump -b c`'s annotation):
    "temp(2,0, 3-5) = "; `first` is the box's first element, the record index first."""
    at = list(first[:-1] if count else first)
    lead = len(first) - len(count)
    for d in range(len(count) - 2, -1, -1):
        at[lead + d] += row % count[d]
        row //= count[d]
    inside = ",".join(map(str, at))
    if count and count[-1] > 0:
        a, n = first[-1], count[-1]
        inside += ("" if not inside else "," if n == 1 else ", ") + (
            str(a) if n == 1 else f"{a}-{a + n - 1}")
    return f"{name}({inside}) = " if inside else f"{name} = "


def _rows(name: str, values: np.ndarray, first: list[int]) -> list[str]:
    if values.ndim == 0:
        return [_label(name, first, (), 0) + _number(values[()])]
    rows = values.reshape(-1, values.shape[-1]) if values.size else values.reshape(0, 0)
    return [_label(name, first, values.shape, r) + ", ".join(_number(x) for x in row)
            for r, row in enumerate(rows)]


def dump(f: File, name: str, step: int | None, start, count, as_json: bool) -> None:
    v = f[name]
    steps = [None] if not v.is_record else ([step] if step is not None else range(f.nsteps))
    results = [(s, f.get(name, start, count, step=s) if s is not None
                else f.get(name, start, count)) for s in steps]
    box_start = [0] * len(v.shape) if start is None else start
    if as_json:
        box_count = [n - s for n, s in zip(v.shape, box_start)] if count is None else count
        out = {"file": f.path, "variable": name, "type": _type_name(v.dtype),
               "dimensions": list(v.dims), "shape": list(v.shape), "start": box_start,
               "count": box_count}
        if v.is_record:
            out["steps"] = [{"step": s, "values": _json_values(a)} for s, a in results]
        else:
            out["values"] = _json_values(results[0][1])
        print(json.dumps(out, separators=(",", ":")))
        return
    for s, values in results:
        for row in _rows(name, values, ([s] if v.is_record else []) + list(box_start)):
            print(row)


def _index_list(text: str | None):
    return None if text is None else [int(x) for x in text.split(",")] if text else []


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["report"]:  # its own parser: it reads profiles, not files
        from .report import main as report
        return report(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m tapio", description=__doc__.split(":")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_ls = sub.add_parser("ls", help="List dimensions, attributes and variables")
    p_ls.add_argument("path")
    p_ls.add_argument("--json", action="store_true")
    p_dump = sub.add_parser("dump", help="Print the values of a variable")
    p_dump.add_argument("path")
    p_dump.add_argument("var")
    p_dump.add_argument("--step", type=int, help="Record (0-based); default: all")
    p_dump.add_argument("--start", help="First index per dimension, comma-separated")
    p_dump.add_argument("--count", help="Elements per dimension, comma-separated")
    p_dump.add_argument("--json", action="store_true")
    sub.add_parser("report", help="What a run's I/O cost, from its profile (report --help)")
    args = parser.parse_args(argv)
    from mpi4py import MPI
    try:
        with File(args.path, "r", MPI.COMM_SELF, None, None, None) as f:
            if args.command == "ls":
                ls(f, args.json)
            else:
                dump(f, args.var, args.step, _index_list(args.start), _index_list(args.count),
                     args.json)
    except (Error, ValueError) as e:
        sys.stdout.flush()
        print(f"tapio: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
