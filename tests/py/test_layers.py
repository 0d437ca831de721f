"""The buffering layers (src/io/layers.h) seen from outside. layer_probe makes many small
writes, or random 8-byte reads on every rank, through the layers a file's parameters choose and
prints the requests storage received (io::Counters, below the layers); strace's count of the
same system calls on the same file must agree exactly, with and without each layer. With the
read cache, 4 ranks reading 10^5 random scalars each from a 64 MiB file send at most 1/100 as
many reads to storage, and read the same values (checked against this file's own reading)."""
import json
import os
import shutil
import subprocess
import struct

import pytest

from conftest import BUILD, MPI_ENV, mpiexec, under_ptrace

TIMEOUT = 300
PROBE = BUILD / "tests" / "io" / "layer_probe"
CALLS = ("pwrite64", "pread64", "write", "read")


def probe(np, *args, strace_path=None, log=None):
    """layer_probe's per-rank counts; under `strace -f -c -P strace_path` when a log is given."""
    cmd = mpiexec(np, PROBE, *map(str, args))
    if log:
        cmd = ["strace", "-f", "-c", "-P", str(strace_path), "-e",
               "trace=" + ",".join(CALLS), "-o", str(log)] + cmd
    env = under_ptrace(MPI_ENV) if log else MPI_ENV
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def strace_counts(log):
    """Calls per system call from strace -c's table (`% time seconds usecs/call calls [errors]
    syscall`)."""
    counts = dict.fromkeys(CALLS, 0)
    for line in log.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[-1] in counts:
            counts[parts[-1]] = int(parts[3])
    return counts


@pytest.fixture(scope="module")
def strace_works(tmp_path_factory):
    if shutil.which("strace") is None:
        pytest.skip("strace not installed")
    tmp = tmp_path_factory.mktemp("strace")
    proc = subprocess.run(["strace", "-f", "-c", "-o", str(tmp / "log"), "true"],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        pytest.skip(f"strace unusable here: {proc.stderr[-200:]}")


def total(rows, key):
    return sum(r[key] for r in rows)


# 10,000 writes of 100 bytes: what storage receives with each layer, exactly.
WRITES = [
    ([], 10000, 1_000_000),
    (["layers=buffered", "layer_buffer_size=64KiB"], 16, 1_000_000),  # 15 full + 16,960
    (["layers=aligned", "layer_align=64KiB"], 16, 1_000_000),         # 15 units + the tail
    # 100 KiB buffers cut into whole 64 KiB units: the aligned layer joins what straddles two.
    (["layers=buffered,aligned", "layer_buffer_size=100KiB", "layer_align=64KiB"], 16, 1_000_000),
]


@pytest.mark.parametrize("params,writes,bytes_", WRITES, ids=["none", "buffered", "aligned",
                                                               "buffered+aligned"])
def test_small_writes_counted_and_confirmed_by_strace(tmp_path, strace_works, params, writes,
                                                      bytes_):
    path, log = tmp_path / "w.dat", tmp_path / "w.strace"
    rows = probe(1, "write", path, 10000, 100, *params, strace_path=path, log=log)
    assert total(rows, "writes") == writes
    assert total(rows, "bytes_written") == bytes_
    seen = strace_counts(log)
    assert seen["pwrite64"] == writes, seen
    assert seen["write"] == 0 and seen["read"] == 0 and seen["pread64"] == 0, seen
    data = path.read_bytes()  # every byte where it belongs: piece i holds (i + b) % 256
    assert len(data) == bytes_
    assert all(data[i * 100 + b] == (i + b) % 256 for i in range(0, 10000, 997) for b in (0, 99))


def expected_digests(path, ranks, count, seed):
    """The sum of the values each rank's reads must return, computed here from the file."""
    data = memoryview(path.read_bytes())
    n = len(data) // 8
    out = []
    for r in range(ranks):
        x, digest = seed + r, 0
        for _ in range(count):
            x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
            digest += struct.unpack_from("<Q", data, ((x >> 17) % n) * 8)[0]
        out.append(digest % 2**64)
    return out


@pytest.fixture(scope="module")
def variable(tmp_path_factory):
    """A 64 MiB variable's bytes in a file."""
    path = tmp_path_factory.mktemp("cache") / "var.dat"
    path.write_bytes(os.urandom(64 << 20))
    return path


CACHE = ["layers=cache", "read_cache_page=1MiB", "read_cache_size=64MiB"]


def test_small_reads_counted_and_confirmed_by_strace(tmp_path, variable, strace_works):
    for params in ([], CACHE):
        log = tmp_path / "r.strace"
        rows = probe(4, "read", variable, 10000, 7, *params, strace_path=variable, log=log)
        seen = strace_counts(log)
        assert seen["pread64"] == total(rows, "reads"), (params, seen)
        assert seen["read"] == 0 and seen["pwrite64"] == 0 and seen["write"] == 0, seen
        if not params:
            assert total(rows, "reads") == 4 * 10000


def test_read_cache_cuts_random_scalar_reads_a_hundredfold(variable):
    count = 100_000
    plain = probe(4, "read", variable, count, 11)
    cached = probe(4, "read", variable, count, 11, *CACHE)
    assert total(plain, "reads") == 4 * count
    # Each rank reads each 1 MiB page about once: 64 pages of the 64 MiB variable.
    assert total(cached, "reads") * 100 <= total(plain, "reads")
    assert total(cached, "bytes_read") <= 4 * (64 << 20) * 2
    want = expected_digests(variable, 4, count, 11)
    by_rank = lambda rows: [r["digest"] for r in sorted(rows, key=lambda r: r["rank"])]
    assert by_rank(plain) == want
    assert by_rank(cached) == want
    print(f"reads: {total(plain, 'reads')} without the cache, {total(cached, 'reads')} with it; "
          f"bytes read {total(cached, 'bytes_read')}")
