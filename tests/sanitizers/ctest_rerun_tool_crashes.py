#!/usr/bin/env python3
"""Run ctest under the sanitizers, and rerun once the tests whose only failure was
LeakSanitizer itself crashing.

LeakSanitizer stops every thread at exit to scan memory; when a thread of Open MPI's is
still tearing down, its tracer can fault ("Tracer caught signal 11 ... LeakSanitizer has
encountered a fatal error", google/sanitizers#1353). That is the tool failing, not a
finding: it reports no leak and no memory error. Such a test is run once more; any other
failure (a leak found, an ASan or UBSan report, a failed assertion) fails at once.

The fault is in reading a thread's thread-local storage (a rank's main thread, whose TLS
table still names Open MPI components that were unloaded): roundtrip_test at 4 ranks crashed
6 times in 6 on a loaded machine, and passed with `use_tls=0`. So the rerun sets that option:
the tracer no longer reads TLS, and leaks are still searched for. A block kept only through a
thread-local pointer would then be reported as a leak: a false alarm, never a missed leak.

Usage: ctest_rerun_tool_crashes.py [ctest arguments...]   (from the build directory)
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

TOOL_CRASH = "LeakSanitizer has encountered a fatal error"
FINDINGS = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer: detected)|runtime error:|\[  FAILED  \]")
JUNIT = "Testing/sanitizer_results.xml"


def run_ctest(args, env=None):
    return subprocess.call(["ctest", "--output-junit", JUNIT, *args], env=env)


def failed_tests():
    """(name, output) of every failed test in the last run's JUnit report."""
    root = ET.parse(JUNIT).getroot()
    for case in root.iter("testcase"):
        if case.get("status") == "fail" or case.find("failure") is not None:
            out = case.find("system-out")
            yield case.get("name"), out.text if out is not None and out.text else ""


def main():
    args = sys.argv[1:]
    if run_ctest(args) == 0:
        return 0
    failed = list(failed_tests())
    tool_crashes = [name for name, out in failed if TOOL_CRASH in out and not FINDINGS.search(out)]
    if not failed or len(tool_crashes) != len(failed):
        return 1
    print(f"\nrerunning {len(tool_crashes)} test(s) whose only failure was LeakSanitizer's tracer "
          f"crashing (google/sanitizers#1353): {', '.join(tool_crashes)}", flush=True)
    pattern = "^(" + "|".join(re.escape(n) for n in tool_crashes) + ")$"
    env = dict(os.environ, LSAN_OPTIONS=os.environ.get("LSAN_OPTIONS", "") + ":use_tls=0")
    return run_ctest(["--output-on-failure", "-R", pattern], env=env)


if __name__ == "__main__":
    sys.exit(main())
