"""make test's list of skips (tests/skipped_tests.py) over reports written as GoogleTest, ctest
and pytest write them: a case skipped at one rank count but run at another has run; a missing
optional peer or a make test-large case is listed and accepted; any other skip fails."""
import subprocess
import sys

from conftest import ROOT


def gtest(*cases):
    """A GoogleTest XML report of (name, reason or None when it ran) in suite S."""
    body = "".join(
        f'<testcase name="{name}" classname="S" status="run" result="completed"/>' if reason is None
        else f'<testcase name="{name}" classname="S" status="run" result="skipped">'
             f'<skipped message="x_test.cpp:12&#x0A;{reason}"/></testcase>'
        for name, reason in cases)
    return f'<testsuites><testsuite name="S">{body}</testsuite></testsuites>'


def skipped_list(tmp_path, gtests, pytest_skips=(), ctest="", kind="pytest.skip"):
    results = tmp_path / "test-results"
    (results / "gtest").mkdir(parents=True)
    for name, text in gtests.items():
        (results / "gtest" / f"{name}.xml").write_text(text)
    cases = "".join(f'<testcase classname="tests.py.test_x" name="{name}">'
                    f'<skipped type="{kind}" message="{reason}"/></testcase>'
                    for name, reason in pytest_skips)
    (results / "pytest.xml").write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>")
    (results / "ctest.xml").write_text(f"<testsuite>{ctest}</testsuite>")
    return subprocess.run([sys.executable, ROOT / "tests" / "skipped_tests.py", tmp_path],
                          capture_output=True, text=True, timeout=60)


def test_a_case_run_at_another_rank_count_is_not_skipped(tmp_path):
    proc = skipped_list(tmp_path, {"mpi.t.np1": gtest(("Pair", "needs two ranks")),
                                   "mpi.t.np2": gtest(("Pair", None))})
    assert proc.returncode == 0, proc.stderr
    assert "skipped tests: 0" in proc.stdout


def test_optional_peers_and_large_cases_are_listed_and_accepted(tmp_path):
    large = "opt-in (make test-large): set TAPIO_LARGE_TESTS=1"
    proc = skipped_list(tmp_path, {"mpi.large.np1": gtest(("Big", large)),
                                   "mpi.large.np2": gtest(("Big", large))},
                        [("test_peer[phdf5]", "optional peer: phdf5 not built")])
    assert proc.returncode == 0, proc.stderr
    assert "skipped tests: 2 (2 accepted" in proc.stdout
    assert "mpi.large S.Big (mpi.large.np1, mpi.large.np2)" in proc.stdout
    assert "tests.py.test_x::test_peer[phdf5]" in proc.stdout


def test_any_other_skip_fails_with_its_reason(tmp_path):
    proc = skipped_list(tmp_path, {"unit.u": gtest(("Tmp", "/tmp is on overlayfs"), ("Ok", None))},
                        [("test_e3sm", "E3SM-IO map not available")],
                        '<testcase name="mpi.v.np8" status="notrun"/>')
    assert proc.returncode == 1
    assert "unit.u S.Tmp: /tmp is on overlayfs" in proc.stderr
    assert "tests.py.test_x::test_e3sm: E3SM-IO map not available" in proc.stderr
    assert "mpi.v.np8: ctest: notrun" in proc.stderr
    assert "3 skipped tests are not for a missing optional peer" in proc.stderr


def test_a_strict_xfail_is_a_listed_known_defect(tmp_path):
    proc = skipped_list(tmp_path, {}, [("test_dims", "dimension ids follow use (issue 25)")],
                        kind="pytest.xfail")
    assert proc.returncode == 0, proc.stderr
    assert "known defect: dimension ids follow use (issue 25)" in proc.stdout
