"""python -m tapio report PROFILE.json [B.json] [--plot OUT.png|.svg] [--html OUT.html]: what
a run's I/O cost, from the JSON profile an engine writes at close (`profile = "PATH"`,
docs/api.md §1.5.1), as the seeds' table (requests, bytes, I/O wait, wall time), time per phase,
per-rank min / median / max and a request-size histogram in Darshan's bins. Two profiles are
compared side by side. Plots (matplotlib): each rank's time by phase, per-rank requests and
bytes, and the histogram.

Needs only the standard library, and matplotlib for --plot and --html: it reads JSON, not
files, so it also runs as a plain script (`python report.py ...`) where the binding is not
built. `tapio report` runs it as `python -m tapio report`."""
from __future__ import annotations

import argparse
import html
import io
import json
import os
import statistics
import sys
from dataclasses import dataclass

# Darshan's POSIX size bins (src/io/counters.h): the counter suffixes and how they read.
SIZE_BINS = ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
             "10M_100M", "100M_1G", "1G_PLUS"]
SIZE_LABELS = ["0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
               "10M-100M", "100M-1G", "1G+"]
# Seconds a rank is blocked in storage calls: Cray's IOWAIT.
WAIT_COUNTERS = ["POSIX_F_READ_TIME", "POSIX_F_WRITE_TIME", "POSIX_F_META_TIME"]


@dataclass
class Table:
    title: str
    header: list[str]          # the first entry names the row labels' column
    rows: list[list[str]]      # label, then one cell per remaining header entry


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        try:
            profile = json.load(f)
        except ValueError as e:  # json's JSONDecodeError, or bytes that are not UTF-8 text
            raise ValueError(f"'{path}' is not a tapio profile: it is not JSON ({e})") from None
    if not isinstance(profile, dict):
        raise ValueError(f"'{path}' is not a tapio profile: its JSON is not an object")
    for key in ("counters", "phases", "ranks"):
        if key not in profile:
            raise ValueError(f"'{path}' is not a tapio profile: it has no '{key}'")
    return profile


def counter(p: dict, name: str, how: str = "sum") -> float:
    """A counter reduced over ranks (sum, min or max); 0 when the profile lacks it."""
    return p["counters"].get(name, {}).get(how, 0)


def per_rank(p: dict, name: str) -> list[float] | None:
    """A counter's value on each rank, or None for profiles without "per_rank"."""
    return p.get("per_rank", {}).get("counters", {}).get(name)


def rank_sums(p: dict, *names: str) -> list[float]:
    """Per rank, the sum of some counters."""
    return [sum(v) for v in zip(*(per_rank(p, name) for name in names))]


def rank_values(p: dict) -> dict[str, list[float]] | None:
    """Per rank: requests, bytes, I/O wait, time in tapio and open-to-close time."""
    if "per_rank" not in p:
        return None
    return {"requests": rank_sums(p, "POSIX_WRITES", "POSIX_READS"),
            "bytes": rank_sums(p, "POSIX_BYTES_WRITTEN", "POSIX_BYTES_READ"),
            "I/O wait (s)": rank_sums(p, *WAIT_COUNTERS),
            "in tapio (s)": per_rank(p, "time_in_calls"),
            "open to close (s)": per_rank(p, "time_total")}


def count(v: float) -> str:
    return f"{int(v):,}"


def seconds(v: float) -> str:
    return f"{v:.6f}"


def size(v: float) -> str:
    """Bytes with thousands separators and, from 1 KiB, in binary units."""
    units = [(2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")]
    scaled = next((f" ({v / u:.1f} {name})" for u, name in units if v >= u), "")
    return count(v) + scaled


def ratio(a: float, b: float) -> str:
    return f"{b / a:.3g}x" if a else "-"


def columns_of(names: list[str], stats: list[str]) -> list[str]:
    """Column headers: the stats, each prefixed with its profile's name when there are two."""
    return stats if len(names) == 1 else [f"{n}:{s}" for n in names for s in stats]


def run_table(profiles: list[dict], names: list[str]) -> Table:
    """The seeds' table: one column per profile, then B/A when there are two."""
    rows = [
        ("LOGIOReqs (requests)", count,
         lambda p: counter(p, "POSIX_WRITES") + counter(p, "POSIX_READS")),
        ("  writes", count, lambda p: counter(p, "POSIX_WRITES")),
        ("  reads", count, lambda p: counter(p, "POSIX_READS")),
        ("bytes", size,
         lambda p: counter(p, "POSIX_BYTES_WRITTEN") + counter(p, "POSIX_BYTES_READ")),
        ("  written", size, lambda p: counter(p, "POSIX_BYTES_WRITTEN")),
        ("  read", size, lambda p: counter(p, "POSIX_BYTES_READ")),
        ("I/O wait (s, all ranks)", seconds,
         lambda p: sum(counter(p, n) for n in WAIT_COUNTERS)),
        ("wall time (s)", seconds, lambda p: counter(p, "time_total", "max")),
        ("MPP time (s, all ranks)", seconds, lambda p: counter(p, "time_total")),
        ("time in tapio (s, max)", seconds, lambda p: counter(p, "time_in_calls", "max")),
        ("fsyncs", count, lambda p: counter(p, "POSIX_FSYNCS")),
        ("messages sent", count, lambda p: counter(p, "messages_sent")),
        ("bytes sent", size, lambda p: counter(p, "bytes_sent")),
    ]
    header = ["run"] + names + (["B/A"] if len(profiles) == 2 else [])
    out = []
    for label, fmt, get in rows:
        values = [get(p) for p in profiles]
        out.append([label] + [fmt(v) for v in values]
                   + ([ratio(*values)] if len(values) == 2 else []))
    return Table("The run", header, out)


def phase_table(profiles: list[dict], names: list[str]) -> Table:
    """Seconds per phase, per rank min / median / max and the sum over ranks."""
    stats = ["min", "median", "max", "sum"]
    phases = list(dict.fromkeys(k for p in profiles for k in p["phases"]))
    header = ["phase (s)"] + columns_of(names, stats)
    rows = [[ph] + [seconds(p["phases"].get(ph, {}).get(s, 0)) for p in profiles for s in stats]
            for ph in phases]
    return Table("Time per phase (per rank: min, median, max; sum over ranks)", header, rows)


def rank_table(profiles: list[dict], names: list[str]) -> Table:
    """Per-rank min / median / max of the run's totals (median needs "per_rank")."""
    stats = ["min", "median", "max"]
    header = ["per rank"] + columns_of(names, stats)
    rows = {}
    for p in profiles:
        values = rank_values(p)
        if values is None:
            raise ValueError("the profile has no 'per_rank' section (written by an older tapio)")
        for label, v in values.items():
            fmt = seconds if "(s)" in label else count
            rows.setdefault(label, [label]).extend(
                fmt(x) for x in (min(v), statistics.median(v), max(v)))
    return Table("Per rank (min, median, max over ranks)", header, list(rows.values()))


def histogram(p: dict, kind: str) -> list[int]:
    """Requests per Darshan size bin; kind is WRITE or READ."""
    return [int(counter(p, f"POSIX_SIZE_{kind}_{b}")) for b in SIZE_BINS]


def histogram_table(profiles: list[dict], names: list[str]) -> Table:
    header = ["request size"] + columns_of(names, ["writes", "reads"])
    columns = [histogram(p, kind) for p in profiles for kind in ("WRITE", "READ")]
    rows = [[label] + [count(c[i]) for c in columns] for i, label in enumerate(SIZE_LABELS)]
    rows.append(["total"] + [count(sum(c)) for c in columns])
    return Table("Request sizes (bytes, Darshan's bins; all ranks)", header, rows)


def tables(profiles: list[dict], names: list[str]) -> list[Table]:
    return [run_table(profiles, names), phase_table(profiles, names),
            rank_table(profiles, names), histogram_table(profiles, names)]


def describe(p: dict, name: str) -> str:
    return (f"{name}: {p.get('engine', '?')} engine, file {p.get('file', '?')}, "
            f"{p['ranks']} ranks, {p.get('steps', '?')} steps")


def text(t: Table) -> str:
    """The title, then labels left-aligned and cells right-aligned in columns."""
    widths = [max(len(r[i]) for r in [t.header] + t.rows) for i in range(len(t.header))]

    def line(row: list[str]) -> str:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        return "  ".join(cells).rstrip()
    return "\n".join([t.title, line(t.header)] + [line(r) for r in t.rows])


def html_table(t: Table) -> str:
    def cells(row: list[str], tag: str) -> str:
        return "".join(f"<{tag}>{html.escape(c)}</{tag}>" for c in row)
    rows = "".join(f"<tr>{cells(r, 'td')}</tr>" for r in t.rows)
    return (f"<h2>{html.escape(t.title)}</h2>\n<table><tr>{cells(t.header, 'th')}</tr>"
            f"{rows}</table>\n")


# --- plots --------------------------------------------------------------------------------

def draw(profiles: list[dict], names: list[str]):
    """The figure: per profile, each rank's time by phase, the size histogram, and per-rank
    requests and bytes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2 * len(profiles), 2, figsize=(13, 7.5 * len(profiles)),
                             squeeze=False)
    phases = [k for k in dict.fromkeys(k for p in profiles for k in p["phases"]) if k != "other"]
    colors = phase_colors(phases, plt.get_cmap("tab20").colors)
    for i, (p, name) in enumerate(zip(profiles, names)):
        if "per_rank" not in p:
            raise ValueError(f"{name}: the profile has no 'per_rank' section (an older tapio)")
        timeline, hist = axes[2 * i]
        requests, volume = axes[2 * i + 1]
        draw_phases(timeline, p, colors)
        timeline.set_title(f"{describe(p, name)}\ntime inside tapio per rank, by phase",
                           fontsize=9)
        draw_histogram(hist, p)
        draw_rank_bars(requests, p, ("POSIX_WRITES", "POSIX_READS"), "requests", 1)
        draw_rank_bars(volume, p, ("POSIX_BYTES_WRITTEN", "POSIX_BYTES_READ"), "MiB", 2**20)
    for column in range(2):  # compared runs on the same scales
        share(axes[0::2, column], "x" if column == 0 else "y")
        share(axes[1::2, column], "y")
    fig.tight_layout()
    return fig


def phase_colors(phases: list[str], tab20: tuple) -> dict:
    """A colour of its own for each phase, and light grey for "other": tab10's ten (tab20's
    even entries), black, then tab20's lighter shades but its grey, so 18 phases (tapio has
    11) never share one, as cycling tab10 made "encode" take "plan"'s blue."""
    palette = [*tab20[0::2], "black", *(c for i, c in enumerate(tab20) if i % 2 and i != 15)]
    if len(phases) > len(palette):
        raise ValueError(f"the profile has {len(phases)} phases, the plot has {len(palette)} "
                         "colours")
    return dict(zip(phases, palette), other="lightgray")


def share(axes, which: str) -> None:
    """Gives axes the widest of their x (or y) ranges."""
    limits = [ax.get_xlim() if which == "x" else ax.get_ylim() for ax in axes]
    widest = (min(lo for lo, _ in limits), max(hi for _, hi in limits))
    for ax in axes:
        (ax.set_xlim if which == "x" else ax.set_ylim)(widest)


def draw_phases(ax, p: dict, colors: dict) -> None:
    """One bar per rank, its phases laid end to end (their sums, not their order in time)."""
    ranks = range(p["ranks"])
    left = [0.0] * p["ranks"]
    for phase, values in p["per_rank"]["phases"].items():
        if not any(values):
            continue
        ax.barh(ranks, values, left=left, color=colors[phase], label=phase)
        left = [a + b for a, b in zip(left, values)]
    ax.set_yticks(list(ranks))
    ax.set_ylabel("rank")
    ax.invert_yaxis()
    ax.set_xlabel("seconds inside tapio's calls (each phase's total, not when it ran)")
    ax.legend(fontsize=8, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.16))


def draw_histogram(ax, p: dict) -> None:
    xs = range(len(SIZE_LABELS))
    ax.bar([x - 0.2 for x in xs], histogram(p, "WRITE"), 0.4, label="writes")
    ax.bar([x + 0.2 for x in xs], histogram(p, "READ"), 0.4, label="reads")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(SIZE_LABELS, rotation=30, fontsize=8)
    ax.set_xlabel("request size (bytes), all ranks")
    ax.set_ylabel("requests")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title("request sizes (Darshan's bins)", fontsize=9)
    ax.legend(fontsize=8)


def draw_rank_bars(ax, p: dict, names: tuple[str, str], unit: str, scale: float) -> None:
    """Writes and reads per rank, side by side."""
    ranks = range(p["ranks"])
    for offset, name, label in ((-0.2, names[0], "write"), (0.2, names[1], "read")):
        ax.bar([r + offset for r in ranks], [v / scale for v in per_rank(p, name)], 0.4,
               label=label)
    ax.set_xticks(list(ranks))
    ax.set_xlabel("rank")
    ax.set_ylabel(unit)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(f"{unit} per rank", fontsize=9)
    ax.legend(fontsize=8)


def save_plot(profiles: list[dict], names: list[str], out: str) -> None:
    fig = draw(profiles, names)
    fig.savefig(out, dpi=110)


def save_html(profiles: list[dict], names: list[str], out: str) -> None:
    """One self-contained page: the tables and the figure as inline SVG."""
    svg = io.StringIO()
    draw(profiles, names).savefig(svg, format="svg")
    body = "".join(f"<p>{html.escape(describe(p, n))}</p>\n" for p, n in zip(profiles, names))
    body += "".join(html_table(t) for t in tables(profiles, names))
    style = ("body{font-family:sans-serif} table{border-collapse:collapse} "
             "td,th{border:1px solid #ccc;padding:2px 8px} td+td,th+th{text-align:right}")
    with open(out, "w") as f:
        f.write(f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>tapio report"
                f"</title><style>{style}</style></head><body>\n<h1>tapio report</h1>\n{body}"
                f"{svg.getvalue()[svg.getvalue().find('<svg'):]}\n</body></html>\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tapio report", description=__doc__.split(":")[0])
    parser.add_argument("profiles", nargs="+", metavar="PROFILE.json",
                        help="one profile, or two to compare (A then B)")
    parser.add_argument("--plot", metavar="OUT", help="draw the plots into OUT (.png or .svg)")
    parser.add_argument("--html", metavar="OUT", help="write the tables and plots as one page")
    args = parser.parse_args(argv)
    if len(args.profiles) > 2:
        parser.error("give one profile, or two to compare")
    if args.plot and os.path.splitext(args.plot)[1].lower() not in (".png", ".svg"):
        parser.error("--plot: the file must end in .png or .svg")
    try:
        profiles = [load(path) for path in args.profiles]
        names = ["A", "B"] if len(profiles) == 2 else [os.path.basename(args.profiles[0])]
        for p, name, path in zip(profiles, names, args.profiles):
            print(describe(p, name if len(profiles) == 2 else path))
        for t in tables(profiles, names):
            print("\n" + text(t))
        if args.plot:
            save_plot(profiles, names, args.plot)
        if args.html:
            save_html(profiles, names, args.html)
    except BrokenPipeError:  # `tapio report P | head`: the reader had enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    except ImportError as e:
        print(f"tapio report: --plot and --html need matplotlib ({e})", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as e:
        print(f"tapio report: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
