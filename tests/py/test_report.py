"""`tapio report`: the tables of a real 4-rank run's profile match its JSON, the request-size
histogram matches the profile's request counts and an independent count of the system calls
(strace), two profiles compare side by side, and the plots are real PNG/SVG files."""
import json
import re
import shutil
import subprocess
import sys
from statistics import median

import pytest

from conftest import BUILD, MPI_ENV, ROOT, mpiexec

TIMEOUT = 300
# Darshan's bins, upper bounds inclusive (src/io/counters.cpp).
UPPER = [100, 1024, 10 * 1024, 100 * 1024, 2**20, 4 * 2**20, 10 * 2**20, 100 * 2**20, 2**30]
SYSCALL = re.compile(r"^(\d+) +(pwrite64|pwritev2?)\((\d+)<([^>]*)>.*?(?:\) += (-?\d+)|"
                     r"<unfinished \.\.\.>)$")
RESUMED = re.compile(r"^(\d+) +<\.\.\. (pwrite64|pwritev2?) resumed>.*\) += (-?\d+)$")


def darshan_bin(size):
    return next((i for i, upper in enumerate(UPPER) if size <= upper), len(UPPER))


def written_sizes(log, path):
    """The size of every write system call on `path`, from `strace -f -y`: a call split by
    another thread's (<unfinished ...>, then <... resumed>) counts once, with its result."""
    sizes, pending = [], set()
    for line in log.read_text().splitlines():
        m = SYSCALL.match(line)
        if m and m[4] == str(path):
            if m[5] is None:
                pending.add(m[1])
            else:
                sizes.append(int(m[5]))
            continue
        r = RESUMED.match(line)
        if r and r[1] in pending:
            pending.discard(r[1])
            sizes.append(int(r[3]))
    return sizes


def licom_run(tmp, engine, steps, strace=False):
    """The LICOM-like demo on 4 ranks, its writer profiled; under strace when asked. Returns
    the profile, the data file, and the strace log (None without strace)."""
    profile, data = tmp / f"{engine}.json", tmp / f"{engine}.nc"
    config = tmp / f"{engine}.toml"
    config.write_text(f'[[rule]]\nio = "ocean_history"\nengine = "{engine}"\n'
                      f'profile = "{profile}"\n')
    cmd = mpiexec(4, BUILD / "examples" / "licom_demo", data, steps)
    log = tmp / f"{engine}.strace" if strace else None
    if log:
        cmd = ["strace", "-f", "-y", "-e", "trace=pwrite64,pwritev,pwritev2", "-o", str(log)] + cmd
    env = dict(MPI_ENV, TAPIO_CONFIG=str(config))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    if log and proc.returncode != 0:
        return None
    assert proc.returncode == 0, proc.stderr
    return profile, data, log


@pytest.fixture(scope="module")
def runs(tmp_path_factory, python_binding):
    """A: the collective engine, B: the serial engine; each under strace when it works here."""
    tmp = tmp_path_factory.mktemp("report")
    return [(shutil.which("strace") and licom_run(tmp, engine, 2, strace=True))
            or licom_run(tmp, engine, 2) for engine in ("collective", "serial")]


def report(*args, command=None, python=sys.executable):
    """`python -m tapio report ARGS` (or `command`, with $TAPIO_PYTHON = python): its exit code
    and output."""
    cmd = (command or [sys.executable, "-m", "tapio", "report"]) + [str(a) for a in args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env=dict(MPI_ENV, TAPIO_PYTHON=python))
    return proc.returncode, proc.stdout, proc.stderr


def section(out, title):
    """The rows of one table of the report: {label: [cells]}, header row included."""
    lines = out.split("\n\n")
    block = next(b for b in lines if b.startswith(title)).splitlines()[1:]
    return {re.split(r"  +", ln.strip())[0]: re.split(r"  +", ln.strip())[1:] for ln in block}


def number(cell):
    return float(cell.split(" (")[0].replace(",", ""))


def test_table_matches_the_profile(runs):
    profile = runs[0][0]
    p = json.loads(profile.read_text())
    code, out, err = report(profile)
    assert code == 0, err
    c = lambda name, how="sum": p["counters"][name][how]  # noqa: E731
    run = section(out, "The run")
    assert number(run["LOGIOReqs (requests)"][0]) == c("POSIX_WRITES") + c("POSIX_READS")
    assert number(run["writes"][0]) == c("POSIX_WRITES") > 0
    assert number(run["bytes"][0]) == c("POSIX_BYTES_WRITTEN") + c("POSIX_BYTES_READ")
    assert number(run["written"][0]) == c("POSIX_BYTES_WRITTEN") >= 2 * 4 * 30 * 96 * 144 * 8
    wait = c("POSIX_F_READ_TIME") + c("POSIX_F_WRITE_TIME") + c("POSIX_F_META_TIME")
    assert number(run["I/O wait (s, all ranks)"][0]) == pytest.approx(wait, abs=1e-6)
    assert number(run["wall time (s)"][0]) == pytest.approx(c("time_total", "max"), abs=1e-6)
    assert number(run["MPP time (s, all ranks)"][0]) == pytest.approx(c("time_total"), abs=1e-6)
    phases = section(out, "Time per phase")
    assert phases["phase (s)"] == ["min", "median", "max", "sum"]
    assert set(phases) - {"phase (s)"} == set(p["phases"]) >= {"plan", "exchange", "write",
                                                                "sync", "metadata", "agree"}
    for name, stats in p["phases"].items():
        assert [number(x) for x in phases[name]] == pytest.approx(
            [stats[s] for s in ("min", "median", "max", "sum")], abs=1e-6)
    per_rank = section(out, "Per rank")
    requests = [w + r for w, r in zip(p["per_rank"]["counters"]["POSIX_WRITES"],
                                     p["per_rank"]["counters"]["POSIX_READS"])]
    assert [number(x) for x in per_rank["requests"]] == [min(requests), median(requests),
                                                         max(requests)]


def test_per_rank_values_agree_with_the_reductions(runs):
    """The profile's per_rank section (one gather at close) holds every rank's values."""
    p = json.loads(runs[0][0].read_text())
    per_rank = p["per_rank"]
    for name, values in per_rank["counters"].items():
        assert len(values) == 4
        assert sum(values) == pytest.approx(p["counters"][name]["sum"])
        assert (min(values), max(values)) == (p["counters"][name]["min"],
                                              p["counters"][name]["max"])
    assert list(per_rank["phases"]) == list(p["phases"])
    for name, values in per_rank["phases"].items():
        assert (min(values), max(values)) == (p["phases"][name]["min"], p["phases"][name]["max"])


def test_histogram_counts_every_request(runs):
    profile = runs[0][0]
    p = json.loads(profile.read_text())
    code, out, _ = report(profile)
    hist = section(out, "Request sizes")
    assert hist["request size"] == ["writes", "reads"]
    bins = ["0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M", "10M-100M",
            "100M-1G", "1G+"]
    suffix = ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
              "10M_100M", "100M_1G", "1G_PLUS"]
    for label, s in zip(bins, suffix):
        assert number(hist[label][0]) == p["counters"][f"POSIX_SIZE_WRITE_{s}"]["sum"]
        assert number(hist[label][1]) == p["counters"][f"POSIX_SIZE_READ_{s}"]["sum"]
    assert sum(number(hist[b][0]) for b in bins) == number(hist["total"][0]) \
        == p["counters"]["POSIX_WRITES"]["sum"]
    assert sum(number(hist[b][1]) for b in bins) == p["counters"]["POSIX_READS"]["sum"]


@pytest.mark.parametrize("run", [0, 1], ids=["collective", "serial"])
def test_histogram_matches_strace(runs, run):
    """An independent count: every write system call strace saw on the data file, binned."""
    profile, data, log = runs[run]
    if log is None:
        pytest.skip("strace not installed, or unusable here (ptrace)")
    sizes = written_sizes(log, data)
    p = json.loads(profile.read_text())["counters"]
    assert len(sizes) == p["POSIX_WRITES"]["sum"]
    assert sum(sizes) == p["POSIX_BYTES_WRITTEN"]["sum"]
    counted = [0] * 10
    for s in sizes:
        counted[darshan_bin(s)] += 1
    suffix = ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
              "10M_100M", "100M_1G", "1G_PLUS"]
    assert counted == [p[f"POSIX_SIZE_WRITE_{s}"]["sum"] for s in suffix]


def test_compare_two_profiles(runs):
    (a, *_), (b, *_) = runs
    pa, pb = (json.loads(x.read_text()) for x in (a, b))
    code, out, err = report(a, b)
    assert code == 0, err
    assert out.startswith("A: collective engine") and "\nB: serial engine" in out
    run = section(out, "The run")
    assert run["run"] == ["A", "B", "B/A"]
    reqs = [pa["counters"]["POSIX_WRITES"]["sum"], pb["counters"]["POSIX_WRITES"]["sum"]]
    assert [number(x) for x in run["writes"][:2]] == reqs
    assert run["writes"][2] == f"{reqs[1] / reqs[0]:.3g}x"
    phases = section(out, "Time per phase")
    assert phases["phase (s)"][:5] == ["A:min", "A:median", "A:max", "A:sum", "B:min"]
    assert number(phases["write"][7]) == pytest.approx(pb["phases"]["write"]["sum"], abs=1e-6)
    assert section(out, "Request sizes")["request size"] == ["A:writes", "A:reads", "B:writes",
                                                             "B:reads"]


def test_the_command_runs_the_python_report(runs):
    """`tapio report` (C++) and report.py run as a script print what `python -m tapio report`
    prints."""
    profile = runs[0][0]
    ours = report(profile)
    assert report(profile, command=[str(BUILD / "tools" / "tapio"), "report"]) == ours
    script = ROOT / "python" / "tapio" / "report.py"
    assert report(profile, command=[sys.executable, str(script)]) == ours
    code, out, _ = report("--help", command=[str(BUILD / "tools" / "tapio"), "report"])
    assert code == 0 and "--plot" in out
    code, _, err = report(profile, command=[str(BUILD / "tools" / "tapio"), "report"],
                          python="/nonexistent/python")
    assert code == 1 and "cannot run '/nonexistent/python'" in err and "TAPIO_PYTHON" in err


def test_plots(runs, tmp_path):
    pytest.importorskip("matplotlib")
    (a, *_), (b, *_) = runs
    png, svg, page = tmp_path / "r.png", tmp_path / "r.svg", tmp_path / "r.html"
    code, _, err = report(a, "--plot", png, "--html", page)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    text = page.read_text()
    assert text.count("<table>") == 4 and "<svg" in text and "</html>" in text
    code, _, err = report("--plot", svg, a, b, command=[str(BUILD / "tools" / "tapio"), "report"])
    assert code == 0, err  # the C++ command passes options where they are
    head = svg.read_text()
    assert "<svg" in head and head.rstrip().endswith("</svg>")


def test_plot_gives_every_phase_its_own_colour(runs):
    """Every phase tapio times (encode among them, the eleventh) drawn on one rank bar: each a
    colour no other phase (nor "other") has."""
    pytest.importorskip("matplotlib")
    from tapio import report as tapio_report
    p = json.loads(runs[0][0].read_text())
    p["per_rank"]["phases"] = {name: [0.1] * p["ranks"] for name in p["phases"]}
    assert {"plan", "encode", "other"} <= set(p["phases"])
    timeline = tapio_report.draw([p], ["A"]).axes[0]
    handles, labels = timeline.get_legend_handles_labels()
    assert labels == list(p["phases"])
    colours = [tuple(bars.patches[0].get_facecolor()) for bars in handles]
    assert len(set(colours)) == len(labels), dict(zip(labels, colours))


def test_errors(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"engine": "collective"}')
    code, out, err = report(other)
    assert code == 1 and "is not a tapio profile" in err
    code, _, err = report(tmp_path / "missing.json")
    assert code == 1 and "missing.json" in err
    for name, content in (("text.json", b"not a profile\n"), ("binary.json", b"\x89PNG\xff\x00"),
                          ("list.json", b"[1, 2]"), ("number.json", b"42")):
        (tmp_path / name).write_bytes(content)
        code, _, err = report(tmp_path / name)
        assert code == 1 and f"'{tmp_path / name}' is not a tapio profile" in err, err
    code, _, err = report(other, other, other)
    assert code == 2 and "two to compare" in err
    code, _, err = report(other, "--plot", tmp_path / "x.jpg")
    assert code == 2 and ".png or .svg" in err
