"""PIO's own benchmark, pioperformance (tests/pio_suite builds it unmodified, with its read path),
on the decompositions E3SM wrote (../shared/data/e3sm-io/piodecomp*.dat, 16 ranks) and on its
generated ROUNDROBIN and BLOCK ones (4 and 16 ranks), on /dev/shm and on disk; part of
`make bench`. Each case runs every given build of it (the real PIO's, tapio's) in turn, REPS
times, so the libraries are interleaved in one job and share the machine's load. Both
rearrangers, writes then reads (pioperformance reads the file back and compares every value: a
mismatch fails the run).

The table gives medians over the reps and, per case, tapio's rate over the real PIO's (the
better of its BOX and SUBSET medians against the worse of tapio's, and against the better of
tapio's: pioperformance's first run, BOX, is each library's slower one), with tapio's write and read
phases from its profile (the `profile` parameter, set per file through a TAPIO_CONFIG rule on
the PIO layer's IO names, which the real PIO ignores).

Usage: scripts/bench_pio.py OUT_DIR LABEL=PIOPERF [LABEL=PIOPERF ...]
The label `real` is the peer the others are divided by. Writes OUT_DIR/pioperf.md (the
tables) and OUT_DIR/pioperf.json, and each run's output (and tapio's profiles) under
OUT_DIR/logs. Environment: MPIEXEC, PIO_BENCH_TYPES (pioperformance's pio_typenames, default
pnetcdf), PIO_BENCH_CASES (the cases to run, by name or name@ranks: e.g.
ROUNDROBIN@4,piodecomp16tasks16io01dims_ioid_514; all by default), PIO_BENCH_STORAGE (shm,disk:
both by default), PIO_BENCH_REPS (3), PIO_BENCH_NVARS (8), PIO_BENCH_NFRAMES (4),
PIO_BENCH_VARSIZE (elements per rank of the generated decompositions, 10000), PIO_BENCH_DISK
(the on-disk folder, OUT_DIR/run).
"""
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E3SM = os.path.join(os.path.dirname(ROOT), "shared", "data", "e3sm-io")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.openmpi")
TYPES = os.environ.get("PIO_BENCH_TYPES", "pnetcdf").split()
NVARS = int(os.environ.get("PIO_BENCH_NVARS", "8"))
NFRAMES = int(os.environ.get("PIO_BENCH_NFRAMES", "4"))
VARSIZE = int(os.environ.get("PIO_BENCH_VARSIZE", "10000"))
REPS = int(os.environ.get("PIO_BENCH_REPS", "3"))
ONLY = set(filter(None, os.environ.get("PIO_BENCH_CASES", "").split(",")))
STORAGES = os.environ.get("PIO_BENCH_STORAGE", "shm,disk").split(",")
IOTYPE_NAMES = {1: "pnetcdf", 2: "netcdf", 3: "netcdf4c", 4: "netcdf4p"}
REARRANGERS = ("BOX", "SUBSET")
# "RESULT: write BOX 1 4 8 37.8 0.47" (MB/s then seconds), "RESULT: read BOX 1 4 8 38.9"
RESULT = re.compile(r"RESULT:\s+(write|read)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([-\d.EeNna+]+)")
# The PIO layer names its IOs pio.0, pio.1, ... in the order the files are opened; one run opens
# at most a write and a read per rearranger and iotype.
PROFILED_IOS = 4 * len(TYPES)


def cases():
    """(name, ranks, decompfile) of every case: E3SM's files at the 16 ranks they were written
    for (PIOc_readmap refuses fewer), the generated decompositions at 4 and 16."""
    for path in sorted(glob.glob(os.path.join(E3SM, "piodecomp*.dat"))):
        yield os.path.basename(path)[:-len(".dat")], 16, path
    for doftype in ("ROUNDROBIN", "BLOCK"):
        for ranks in (4, 16):
            yield doftype, ranks, doftype


def chosen(name, ranks):
    return not ONLY or name in ONLY or f"{name}@{ranks}" in ONLY


def namelist(decompfile, ranks):
    """pioperformance's input (pioperf.nl): one I/O task in 4, as E3SM's usual stride."""
    types = " ".join(f"'{t}'" for t in TYPES)
    return (f"&pioperf\n decompfile = '{decompfile}'\n pio_typenames = {types}\n"
            f" rearrangers = 1,2\n nframes = {NFRAMES}\n nvars = {NVARS}\n"
            f" varsize = {VARSIZE}\n niotasks = {max(1, ranks // 4)}\n/\n")


def profile_config(run_dir, profile_dir):
    """A TAPIO_CONFIG file profiling each of the PIO layer's IOs into profile_dir/pio.N.json."""
    path = os.path.join(run_dir, "tapio-profile.toml")
    with open(path, "w") as f:
        for n in range(PROFILED_IOS):
            f.write(f'[[rule]]\nio = "pio.{n}"\n'
                    f'profile = "{os.path.join(profile_dir, f"pio.{n}.json")}"\n')
    return path


def tapio_phases(profile_dir):
    """Per rearranger, the write and read phases of tapio's profiles (median over ranks, ms):
    the files open in the order write BOX, read BOX, write SUBSET, read SUBSET."""
    out = {}
    for n in range(PROFILED_IOS):
        path = os.path.join(profile_dir, f"pio.{n}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            phases = json.load(f)["phases"]
        key = (REARRANGERS[(n // 2) % 2], "write" if n % 2 == 0 else "read")
        out[key] = {p: v["median"] * 1e3 for p, v in phases.items() if v["median"] > 0}
    return out


def run(pioperf, run_dir, decompfile, ranks, log_path):
    """One pioperformance run in run_dir (emptied first): its RESULT lines, parsed, and tapio's
    profiled phases (empty for the real PIO)."""
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "pioperf.nl"), "w") as f:
        f.write(namelist(decompfile, ranks))
    profile_dir = log_path[:-len(".log")] + ".profile"
    shutil.rmtree(profile_dir, ignore_errors=True)
    os.makedirs(profile_dir)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1",
               TAPIO_CONFIG=profile_config(run_dir, profile_dir))
    proc = subprocess.run([MPIEXEC, "-n", str(ranks), pioperf], cwd=run_dir, env=env,
                          capture_output=True, text=True, timeout=1800)
    with open(log_path, "w") as f:
        f.write(proc.stdout + proc.stderr)
    shutil.rmtree(run_dir, ignore_errors=True)
    if proc.returncode != 0 or "mismatch" in proc.stdout.lower():
        sys.exit(f"bench_pio: {pioperf} at {ranks} ranks on {decompfile} failed "
                 f"(exit {proc.returncode}); see {log_path}")
    results = {}
    for phase, rearr, iotype, ntasks, _, rate in RESULT.findall(proc.stdout):
        key = (IOTYPE_NAMES.get(int(iotype), iotype), rearr, int(ntasks))
        results.setdefault(key, {})[phase] = float(rate)
    if not results:
        sys.exit(f"bench_pio: no RESULT line from {pioperf}; see {log_path}")
    return results, tapio_phases(profile_dir)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio_text(ratio):
    return "-" if ratio is None else f"{ratio:.2f}"


def rate(mb_s):
    return "-" if mb_s is None else f"{mb_s:.1f}"


def phases_text(phases):
    """The largest phases first: "write 41, exchange 12, ..." (ms)."""
    if not phases:
        return "-"
    top = sorted(phases.items(), key=lambda kv: -kv[1])[:4]
    return ", ".join(f"{p} {ms:.0f}" for p, ms in top)


def summary(rows, labels):
    """Per case, iotype and storage: each library's best and worst rearranger medians, and each
    other library's worst over the real PIO's best (writes, reads)."""
    groups = {}
    for r in rows:
        groups.setdefault((r["case"], r["ranks"], r["storage"], r["iotype"]), []).append(r)
    out = []
    for (case, ranks, storage, iotype), group in groups.items():
        entry = dict(case=case, ranks=ranks, storage=storage, iotype=iotype)
        for label in labels:
            mine = [r for r in group if r["library"] == label]
            for phase in ("write", "read"):
                rates = [r[f"{phase}_mb_s"] for r in mine if r[f"{phase}_mb_s"] is not None]
                entry[f"{label}_{phase}_best"] = max(rates) if rates else None
                entry[f"{label}_{phase}_worst"] = min(rates) if rates else None
        for label in labels:
            if label == "real":
                continue
            for phase in ("write", "read"):
                peer = entry.get(f"real_{phase}_best")
                for which in ("worst", "best"):
                    mine = entry[f"{label}_{phase}_{which}"]
                    entry[f"{label}_{phase}_ratio_{which}"] = mine / peer if peer and mine else None
            phases = [r["phases"] for r in group if r["library"] == label and r["phases"]]
            for phase in ("write", "read"):
                merged = {}
                for p in phases:
                    for k, v in p.get(phase, {}).items():
                        merged.setdefault(k, []).append(v)
                entry[f"{label}_{phase}_phases_ms"] = {k: median(v) for k, v in merged.items()}
        out.append(entry)
    return out


def tables(rows, summ, labels, loads):
    others = [l for l in labels if l != "real"]
    lines = [f"pioperformance: {NVARS} variables of doubles, {NFRAMES} frames, {VARSIZE} "
             f"elements per rank for ROUNDROBIN and BLOCK; one I/O task in 4; medians of "
             f"{REPS} interleaved reps, MB/s as pioperformance reports them. Load average "
             f"(1 min) during the runs: {min(loads):.1f}-{max(loads):.1f}.", ""]
    if "real" in labels and others:
        head = "| case | ranks | storage | PIO write | "
        head += " | ".join(f"{l} write | {l}/PIO write | best/best" for l in others)
        head += " | PIO read | " + " | ".join(f"{l} read | {l}/PIO read | best/best"
                                             for l in others)
        head += " | " + " | ".join(f"{l} write phases (ms) | {l} read phases (ms)"
                                   for l in others) + " |"
        lines += [head, "|" + "---|" * (head.count("|") - 1)]
        for e in summ:
            cells = [e["case"], str(e["ranks"]), e["storage"], rate(e["real_write_best"])]
            for phase in ("write", "read"):
                if phase == "read":
                    cells.append(rate(e["real_read_best"]))
                for l in others:
                    cells.append(rate(e[f"{l}_{phase}_worst"]))
                    cells += [ratio_text(e[f"{l}_{phase}_ratio_{which}"])
                              for which in ("worst", "best")]
            for l in others:
                cells += [phases_text(e[f"{l}_write_phases_ms"]),
                          phases_text(e[f"{l}_read_phases_ms"])]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", "PIO: the better of its BOX and SUBSET medians; tapio: the worse of its "
                  "two (the rearranger does not change what tapio does), and in `best/best` the "
                  "better of its two. pioperformance runs BOX first, into arrays the program "
                  "touches for the first time, so each library's BOX run is its slower one: "
                  "the first ratio charges that to tapio only, the second to neither.", ""]
    lines += ["| case | ranks | storage | library | iotype | rearranger | I/O tasks | "
              "write MB/s | read MB/s |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['case']} | {r['ranks']} | {r['storage']} | {r['library']} | {r['iotype']} "
              f"| {r['rearranger']} | {r['io_tasks']} | {rate(r['write_mb_s'])} "
              f"| {rate(r['read_mb_s'])} |" for r in rows]
    return lines


def main(out_dir, builds):
    disk = os.environ.get("PIO_BENCH_DISK", os.path.join(out_dir, "run"))
    folders = {"shm": f"/dev/shm/tapio-pioperf-{os.getpid()}", "disk": disk}
    os.makedirs(os.path.join(out_dir, "logs"), exist_ok=True)
    samples, loads = {}, []
    for name, ranks, decompfile in cases():
        if not chosen(name, ranks):
            continue
        for storage in STORAGES:
            for rep in range(REPS):
                for label, pioperf in builds:
                    log = os.path.join(out_dir, "logs",
                                       f"{name}-np{ranks}-{storage}-{label}-rep{rep}.log")
                    loads.append(os.getloadavg()[0])
                    began = time.monotonic()
                    results, phases = run(pioperf, folders[storage], decompfile, ranks, log)
                    print(f"== {name} ({ranks} ranks) on {storage}, rep {rep}: {label} "
                          f"{time.monotonic() - began:.0f} s, load {loads[-1]:.1f}", flush=True)
                    for (iotype, rearr, ntasks), r in results.items():
                        key = (name, ranks, storage, label, iotype, rearr, ntasks)
                        s = samples.setdefault(key, {"write": [], "read": [], "phases": []})
                        s["write"].append(r.get("write"))
                        s["read"].append(r.get("read"))
                        s["phases"].append({ph: p for (re_, ph), p in phases.items()
                                            if re_ == rearr})
    rows = []
    for (name, ranks, storage, label, iotype, rearr, ntasks), s in samples.items():
        merged = {}
        for p in s["phases"]:
            for phase, times in p.items():
                for k, v in times.items():
                    merged.setdefault(phase, {}).setdefault(k, []).append(v)
        rows.append(dict(case=name, ranks=ranks, storage=storage, library=label, iotype=iotype,
                         rearranger=rearr, io_tasks=ntasks, write_mb_s=median(s["write"]),
                         read_mb_s=median(s["read"]), write_samples=s["write"],
                         read_samples=s["read"],
                         phases={ph: {k: median(v) for k, v in t.items()}
                                 for ph, t in merged.items()}))
    labels = [label for label, _ in builds]
    summ = summary(rows, labels)
    with open(os.path.join(out_dir, "pioperf.json"), "w") as f:
        json.dump(dict(nvars=NVARS, nframes=NFRAMES, varsize=VARSIZE, reps=REPS,
                       load_1min=[min(loads), max(loads)], results=rows, summary=summ),
                  f, indent=1)
    lines = tables(rows, summ, labels, loads)
    with open(os.path.join(out_dir, "pioperf.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) < 3 or not all("=" in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]),
         [tuple(a.split("=", 1)) for a in sys.argv[2:]])
