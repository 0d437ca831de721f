#!/usr/bin/env python3
"""Checks src/engine against issue 28's limits: no file over 400 lines, no function over 60
lines, no class or struct with more than 12 data members. Functions are measured by lizard,
data members counted by libclang (non-static fields of each class defined in the file):
    .venv/bin/pip install lizard libclang
    .venv/bin/python scripts/engine_limits.py [DIR]
Prints each excess and exits 1 if there is one."""
import pathlib
import sys

import clang.cindex as ci
import lizard

MAX_LINES, MAX_FUNCTION, MAX_MEMBERS = 400, 60, 12
ARGS = ["-x", "c++", "-std=c++17", "-Isrc", "-Iinclude",
        "-I/usr/lib/x86_64-linux-gnu/openmpi/include"]
RECORDS = {ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL, ci.CursorKind.CLASS_TEMPLATE,
           ci.CursorKind.UNION_DECL}


def records(cursor, path):
    for c in cursor.get_children():
        if c.location.file and c.location.file.name != path:
            continue
        if c.kind in RECORDS and c.is_definition():
            yield c
        yield from records(c, path)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "src/engine")
    files = sorted(p for p in root.rglob("*") if p.suffix in (".h", ".cpp"))
    index, found = ci.Index.create(), []
    for p in files:
        lines = len(p.read_text().splitlines())
        if lines > MAX_LINES:
            found.append(f"{p}: {lines} lines")
        for f in lizard.analyze_file(str(p)).function_list:
            if f.length > MAX_FUNCTION:
                found.append(f"{p}:{f.start_line}: {f.name}: {f.length} lines")
        tu = index.parse(str(p), args=ARGS)
        for r in records(tu.cursor, str(p)):
            fields = [c for c in r.get_children() if c.kind == ci.CursorKind.FIELD_DECL]
            if len(fields) > MAX_MEMBERS:
                name = r.spelling or "(unnamed)"
                found.append(f"{p}:{r.location.line}: {name}: {len(fields)} data members")
    print("\n".join(found) if found else f"{root}: within the limits")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
