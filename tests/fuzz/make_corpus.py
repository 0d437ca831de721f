#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus (tests/fuzz/corpus/TARGET) from real files: NetCDF
files written by every engine and by netCDF-C, the E3SM-IO maps (written by PnetCDF), subfile
datasets written with each metadata backend and by an append, the version-1 dataset of
tests/data, and the config examples of docs/tuning.md.

    .venv/bin/python tests/fuzz/make_corpus.py BUILD_DIR    (after make build)

Regression inputs of fixed findings live beside the seeds as regress-*; this script leaves
them alone.
"""
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import netCDF4

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data", "e3sm-io")
CORPUS = os.path.join(HERE, "corpus")
HEADER_BYTES = 32 << 10  # a header fuzzer needs the header, not the data behind it


def save(target, data, name):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:12]
    if any(f.endswith(digest) for f in os.listdir(os.path.join(CORPUS, target))):
        return  # the engines write identical headers: one copy
    with open(os.path.join(CORPUS, target, f"{name}-{digest}"), "wb") as f:
        f.write(data)


def run(build, np, args, engine=None, extra=""):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if engine:
        cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
        cfg.write(f'[[rule]]\nengine = "{engine}"\n{extra}')
        cfg.close()
        env["TAPIO_CONFIG"] = cfg.name
    subprocess.run(["mpiexec.openmpi", "-n", str(np)] + args, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def records(md):
    """The (kind, payload) records of a metadata file, alignment padding skipped."""
    pos = 0
    while pos + 24 <= len(md):
        magic, kind, length = struct.unpack_from("<IIQ", md, pos)
        if magic == 0:
            pos += 1
            continue
        yield kind, md[pos + 24:pos + 24 + length]
        pos += 24 + length


def varint(data, pos):
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def dataset_seeds(path, name):
    idx = open(os.path.join(path, "tapio.idx"), "rb").read()
    md = open(os.path.join(path, "tapio.md"), "rb").read()
    save("subfile_dataset", struct.pack("<I", len(idx)) + idx + md, name)
    lists = {}
    for kind, payload in records(md):
        if kind != 2:
            continue
        writer, _ = varint(payload, 0)
        lists.setdefault(writer, []).append(payload)
        # The first new selection, if any: it starts after writer, subfile, flags, offset, nnew.
        pos = varint(payload, 0)[1]
        pos = varint(payload, pos)[1] + 1
        pos = varint(payload, pos)[1]
        nnew, pos = varint(payload, pos)
        if nnew:
            save("selection", b"\xff\xff" + payload[pos:], name)
    for writer, payloads in sorted(lists.items())[:2]:
        blob = b"".join(struct.pack("<H", len(p)) + p for p in payloads[:8])
        save("block_list", blob, f"{name}-w{writer}")


def map_seeds(path):
    d = netCDF4.Dataset(path)
    k = 1
    while f"D{k}.nreqs" in d.variables:
        arrays = [d.getncattr(f"D{k}.dims"), d[f"D{k}.nreqs"][:], d[f"D{k}.offsets"][:],
                  d[f"D{k}.lengths"][:]]
        if len(arrays[2]) < 4096:  # the fuzzer's inputs stay small
            blob = bytes([0, len(arrays[1])])
            for a in arrays:
                a = [int(x) for x in (a if hasattr(a, "__len__") else [a])]
                blob += struct.pack(f"<H{len(a)}i", len(a), *a)
            save("e3sm_map", blob, f"{os.path.basename(path)}-D{k}")
        k += 1


def operator_seeds():
    # Smooth values (what the operators meet) for each codec and type: the target encodes them,
    # decodes them back, and decodes them as if they were stored bytes.
    import math
    field = [20 + 5 * math.sin(i / 9) * math.cos(i / 31) for i in range(512)]
    for codec, name in enumerate(["none", "zstd", "shuffle-zstd", "zfp"]):
        for type_code, fmt in [(0, "f"), (1, "d")]:
            values = struct.pack(f"<{len(field)}{fmt}", *field)
            length = len(values) // 16
            save("operators", bytes([codec, type_code]) + struct.pack("<H", length) + values,
                 f"{name}-{fmt}")
    save("operators", bytes([1, 2]) + struct.pack("<H", 64) + struct.pack("<256i", *range(256)),
         "zstd-int")


def segment_seeds():
    # Segment lists as the collective engine sends them: a block's rows (offset, length,
    # stride, count), HPIO's interleaved regions, a contiguous range, an E3SM-like scatter.
    lists = {
        "rows": [(4096, 512, 8192, 64)],
        "hpio": [(0, 8, 64, 1 << 18)],
        "contiguous": [(1 << 20, 1 << 20, 1 << 20, 1)],
        "scatter": [(i * 40, 8 * (1 + i % 3), 8 * (1 + i % 3), 1) for i in range(40)],
    }
    for name, segs in lists.items():
        save("segment_list",
             struct.pack("<Q", len(segs)) + b"".join(struct.pack("<4Q", *s) for s in segs), name)


def main(build):
    tmp = tempfile.mkdtemp(prefix="tapio_corpus_")
    demo = os.path.join(build, "examples", "licom_demo")
    replay = os.path.join(build, "examples", "e3sm_replay")
    for engine in ["serial", "mpiio", "collective"]:
        out = os.path.join(tmp, f"{engine}.nc")
        run(build, 2, [demo, out, "2"], engine)
        save("netcdf_header", open(out, "rb").read()[:HEADER_BYTES], f"licom-{engine}")
    for version in ["1", "2"]:
        out = os.path.join(tmp, f"cdf{version}.nc")
        run(build, 2, [demo, out, "2"], "collective", f'netcdf_version = "{version}"\n')
        save("netcdf_header", open(out, "rb").read()[:HEADER_BYTES], f"licom-cdf{version}")
    testdata = os.path.join(ROOT, "src", "format", "netcdf", "testdata")
    for f in sorted(os.listdir(testdata)):
        if f.endswith(".nc"):
            save("netcdf_header", open(os.path.join(testdata, f), "rb").read(), f"netcdf-c-{f}")
    for f in sorted(os.listdir(SHARED)):
        if f.startswith("map_") and f.endswith(".nc"):
            save("netcdf_header", open(os.path.join(SHARED, f), "rb").read()[:HEADER_BYTES], f)
            map_seeds(os.path.join(SHARED, f))
    for backend in ["gather", "log", "aligned"]:
        out = os.path.join(tmp, f"licom-{backend}")
        run(build, 2, [demo, out, "2"], "subfile", f'metadata = "{backend}"\n')
        dataset_seeds(out, f"licom-{backend}")
    out = os.path.join(tmp, "e3sm-f")
    # Only the output is a dataset: the map is read as NetCDF.
    run(build, 2, [replay, os.path.join(SHARED, "map_f_case_16p.nc"), out, "2"], "subfile",
        'path = "*/e3sm-f"\n')
    dataset_seeds(out, "e3sm-f")
    dataset_seeds(os.path.join(ROOT, "tests", "data", "subfile_v1"), "version1")
    dataset_seeds(os.path.join(ROOT, "tests", "data", "subfile_v2"), "version2")
    out = os.path.join(tmp, "licom-operators")
    run(build, 2, [demo, out, "2"], "subfile",
        'operator = "temp=zfp:accuracy=1e-3; salt=zfp:rate=12; ssh=zstd; *=shuffle+zstd"\n')
    dataset_seeds(out, "licom-operators")
    operator_seeds()
    tuning = open(os.path.join(ROOT, "docs", "tuning.md")).read()
    for i, block in enumerate(re.findall(r"```toml\n(.*?)```", tuning, re.S)):
        save("config", block.encode(), f"tuning-{i}")
    save("config", b'[[rule]]\nio = "hist*"\npath = "*.nc"\nengine = "subfile"\n'
         b'aggregators = "1/4"\nbuffer_size = "16MiB"\nfsync = true\n', "rule-kinds")
    save("config", b'[[rule]]\nengine = "collective"\nstripe_size = 1048576\n'
         b'[[rule]]\npath = "/scratch/*"\nmetadata = "aligned"\n', "two-rules")
    segment_seeds()
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
