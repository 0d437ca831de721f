#!/usr/bin/env python3
"""The end of `make test`: every test that did not run, with its reason, from the reports of
the run (BUILD/test-results): ctest's JUnit file (tests ctest did not run), the GoogleTest XML
of each ctest test (cases skipped inside a program ctest counts as passed) and pytest's JUnit
file. A GoogleTest case skipped at one rank count but run at another (\"needs two ranks\") has
run. Exits 1 for any other skip than a missing optional peer or a case of make test-large, so
that CI runs every test it can.

Usage: tests/skipped_tests.py BUILD
"""
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

# The skips CI accepts, by the first words of their reason: a missing optional peer
# (tests/py/conftest.py: skip_optional_peer), the benchmark's PnetCDF, HDF5 and ADIOS peers
# (scripts/setup.sh --bench) or another MPI's limits; and the cases of make test-large, which
# need 7 GiB of memory and of disk (tests/mpi/large_test.cpp); and known defects, pytest's
# strict xfails (each names its open issue, and fails the run once the defect is fixed).
ACCEPTED = ("optional peer: ", "opt-in (make test-large): ", "known defect: ")


def reason_of(element):
    """The reason of a <skipped> element: its message, else its text (GoogleTest gives the
    source line first, then the reason)."""
    text = element.get("message") or element.text or ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if line != "Skipped"]
    return lines[-1] if lines else "(no reason given)"


def ctest_not_run(path):
    """(test, reason) of each ctest test that was skipped or not run."""
    for case in ET.parse(path).iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None:
            yield case.get("name"), reason_of(skipped)
        elif case.get("status") in ("notrun", "disabled"):
            yield case.get("name"), f"ctest: {case.get('status')}"


def gtest_skipped(folder):
    """(program, case, reason, runs) of each GoogleTest case skipped in every ctest run of its
    program (mpi.x.np1, mpi.x.np2, ... are runs of x)."""
    runs = defaultdict(dict)  # (program, case) -> {ctest name: reason or None when it ran}
    for path in sorted(folder.glob("*.xml")):
        name = path.stem
        program = name.rsplit(".np", 1)[0] if name.startswith("mpi.") else name
        for case in ET.parse(path).iter("testcase"):
            skipped = case.find("skipped")
            ran = skipped is None and case.get("result") != "skipped"
            runs[program, f"{case.get('classname')}.{case.get('name')}"][name] = (
                None if ran else reason_of(skipped) if skipped is not None else "skipped")
    for (program, case), by_run in sorted(runs.items()):
        if all(reason is not None for reason in by_run.values()):
            yield program, case, next(iter(by_run.values())), sorted(by_run)


def pytest_skipped(path):
    """(test, reason) of each skipped pytest test; an expected failure is a known defect."""
    for case in ET.parse(path).iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None:
            known = "known defect: " if skipped.get("type") == "pytest.xfail" else ""
            yield f"{case.get('classname')}::{case.get('name')}", known + reason_of(skipped)


def main(build):
    results = Path(build) / "test-results"
    skips = []  # (where, test, reason)
    if (results / "ctest.xml").exists():
        skips += [("ctest", t, r) for t, r in ctest_not_run(results / "ctest.xml")]
    skips += [("gtest", f"{p} {c}" + (f" ({', '.join(n)})" if len(n) > 1 else ""), r)
              for p, c, r, n in gtest_skipped(results / "gtest")]
    if (results / "pytest.xml").exists():
        skips += [("pytest", t, r) for t, r in pytest_skipped(results / "pytest.xml")]
    wrong = [s for s in skips if not s[2].startswith(ACCEPTED)]
    print(f"\nskipped tests: {len(skips)} ({len(skips) - len(wrong)} accepted: optional peers, "
          "make test-large, known defects)")
    for where, test, reason in skips:
        print(f"  {where:6} {test}\n           {reason}")
    if wrong:
        print(f"\n{len(wrong)} skipped tests are not for a missing optional peer: install what "
              "they need (scripts/setup.sh) or make them run here:", file=sys.stderr)
        for where, test, reason in wrong:
            print(f"  {where:6} {test}: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
