"""PIO's own benchmark, pioperformance (tests/pio_suite builds it unmodified, with its read path),
on the decompositions E3SM wrote (../shared/data/e3sm-io/piodecomp*.dat, 16 ranks) and on its
generated ROUNDROBIN and BLOCK ones (4 and 16 ranks), on /dev/shm and on disk; part of
`make bench`. Each given build of it (the real PIO's, tapio's) runs every case in turn, so the
libraries are interleaved in one job. Both rearrangers, writes then reads (pioperformance
reads the file back and compares every value: a mismatch fails the run).

Usage: scripts/bench_pio.py OUT_DIR LABEL=PIOPERF [LABEL=PIOPERF ...]
Writes OUT_DIR/pioperf.md (the table) and OUT_DIR/pioperf.json, and each run's output under
OUT_DIR/logs. Environment: MPIEXEC, PIO_BENCH_TYPES (pioperformance's pio_typenames,
default pnetcdf), PIO_BENCH_CASES (the cases to run, by name: e.g. ROUNDROBIN,BLOCK; all by
default), PIO_BENCH_NVARS (8), PIO_BENCH_NFRAMES (4), PIO_BENCH_VARSIZE (elements
per rank of the generated decompositions, 10000), PIO_BENCH_DISK (the on-disk folder,
OUT_DIR/run).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E3SM = os.path.join(os.path.dirname(ROOT), "shared", "data", "e3sm-io")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.openmpi")
TYPES = os.environ.get("PIO_BENCH_TYPES", "pnetcdf").split()
NVARS = int(os.environ.get("PIO_BENCH_NVARS", "8"))
NFRAMES = int(os.environ.get("PIO_BENCH_NFRAMES", "4"))
VARSIZE = int(os.environ.get("PIO_BENCH_VARSIZE", "10000"))
ONLY = set(filter(None, os.environ.get("PIO_BENCH_CASES", "").split(",")))
IOTYPE_NAMES = {1: "pnetcdf", 2: "netcdf", 3: "netcdf4c", 4: "netcdf4p"}
# "RESULT: write BOX 1 4 8 37.8 0.47" (MB/s then seconds), "RESULT: read BOX 1 4 8 38.9"
RESULT = re.compile(r"RESULT:\s+(write|read)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([-\d.EeNna+]+)")


def cases():
    """(name, ranks, decompfile) of every case: E3SM's files at the 16 ranks they were written
    for (PIOc_readmap refuses fewer), the generated decompositions at 4 and 16."""
    for path in sorted(glob.glob(os.path.join(E3SM, "piodecomp*.dat"))):
        yield os.path.basename(path)[:-len(".dat")], 16, path
    for doftype in ("ROUNDROBIN", "BLOCK"):
        for ranks in (4, 16):
            yield doftype, ranks, doftype


def namelist(decompfile, ranks):
    """pioperformance's input (pioperf.nl): one I/O task in 4, as E3SM's usual stride."""
    types = " ".join(f"'{t}'" for t in TYPES)
    return (f"&pioperf\n decompfile = '{decompfile}'\n pio_typenames = {types}\n"
            f" rearrangers = 1,2\n nframes = {NFRAMES}\n nvars = {NVARS}\n"
            f" varsize = {VARSIZE}\n niotasks = {max(1, ranks // 4)}\n/\n")


def run(pioperf, run_dir, decompfile, ranks, log_path):
    """One pioperformance run in run_dir (emptied first): its RESULT lines, parsed."""
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "pioperf.nl"), "w") as f:
        f.write(namelist(decompfile, ranks))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    proc = subprocess.run([MPIEXEC, "-n", str(ranks), pioperf], cwd=run_dir, env=env,
                          capture_output=True, text=True, timeout=900)
    with open(log_path, "w") as f:
        f.write(proc.stdout + proc.stderr)
    shutil.rmtree(run_dir, ignore_errors=True)
    if proc.returncode != 0 or "mismatch" in proc.stdout:
        sys.exit(f"bench_pio: {pioperf} at {ranks} ranks on {decompfile} failed "
                 f"(exit {proc.returncode}); see {log_path}")
    results = {}
    for phase, rearr, iotype, ntasks, _, rate in RESULT.findall(proc.stdout):
        key = (IOTYPE_NAMES.get(int(iotype), iotype), rearr, int(ntasks))
        results.setdefault(key, {})[phase] = float(rate)
    if not results:
        sys.exit(f"bench_pio: no RESULT line from {pioperf}; see {log_path}")
    return results


def rate(mb_s):
    return "-" if mb_s is None else f"{mb_s:.1f}"


def main(out_dir, builds):
    disk = os.environ.get("PIO_BENCH_DISK", os.path.join(out_dir, "run"))
    storages = {"shm": f"/dev/shm/tapio-pioperf-{os.getpid()}", "disk": disk}
    os.makedirs(os.path.join(out_dir, "logs"), exist_ok=True)
    rows = []
    for name, ranks, decompfile in cases():
        if ONLY and name not in ONLY:
            continue
        for storage, folder in storages.items():
            for label, pioperf in builds:
                log = os.path.join(out_dir, "logs", f"{name}-np{ranks}-{storage}-{label}.log")
                print(f"== {name} ({ranks} ranks) on {storage}: {label}", flush=True)
                for (iotype, rearr, ntasks), r in sorted(
                        run(pioperf, folder, decompfile, ranks, log).items()):
                    rows.append(dict(case=name, ranks=ranks, storage=storage, library=label,
                                     iotype=iotype, rearranger=rearr, io_tasks=ntasks,
                                     write_mb_s=r.get("write"), read_mb_s=r.get("read")))
    with open(os.path.join(out_dir, "pioperf.json"), "w") as f:
        json.dump(dict(nvars=NVARS, nframes=NFRAMES, varsize=VARSIZE, results=rows), f,
                  indent=1)
    lines = [f"pioperformance: {NVARS} variables of doubles, {NFRAMES} frames, "
             f"{VARSIZE} elements per rank for ROUNDROBIN and BLOCK; MB/s as it reports them.",
             "", "| case | ranks | storage | library | iotype | rearranger | I/O tasks | "
             "write MB/s | read MB/s |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['case']} | {r['ranks']} | {r['storage']} | {r['library']} | {r['iotype']} "
              f"| {r['rearranger']} | {r['io_tasks']} | {rate(r['write_mb_s'])} "
              f"| {rate(r['read_mb_s'])} |" for r in rows]
    with open(os.path.join(out_dir, "pioperf.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) < 3 or not all("=" in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]),
         [tuple(a.split("=", 1)) for a in sys.argv[2:]])
