"""The config file chosen by TAPIO_CONFIG applies per IO name, and the profile it asks for
reports exact request counts (Darshan's names)."""
import json
import subprocess

from conftest import MPI_ENV, mpiexec


def test_profile_counts_every_request(build, tmp_path):
    profile = tmp_path / "profile.json"
    config = tmp_path / "tapio.toml"
    config.write_text(f'[[rule]]\nio = "ocean_history"\nengine = "serial"\n'
                      f'profile = "{profile}"\nfsync = "never"\n')
    env = dict(MPI_ENV, TAPIO_CONFIG=str(config))
    cmd = mpiexec(4, build / "examples" / "licom_demo", tmp_path / "p.nc", 3)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(profile.read_text())
    assert report["engine"] == "serial" and report["ranks"] == 4 and report["steps"] == 3
    c = report["counters"]
    # Rank 0 alone writes: the header, then per step one request per variable put (6 record
    # variables; lat once in step 0) and the numrecs update: 1 + (7 + 1) + 2 * (6 + 1) = 23.
    assert c["POSIX_WRITES"]["sum"] == 23
    assert c["POSIX_WRITES"]["max"] == 23 and c["POSIX_WRITES"]["min"] == 0
    assert c["POSIX_FSYNCS"]["sum"] == 0  # fsync = never, from the config file
    record = (4 * 30 + 2) * 96 * 144 * 8
    assert c["POSIX_BYTES_WRITTEN"]["sum"] >= 3 * record + 96 * 8
    # Every rank but 0 sends its request list and its data once per step: the 7 variables'
    # records (4 of 3.3 MB, 2 of 110 KB, lat) fit in one batch of buffer_size (16 MiB).
    assert c["messages_sent"]["sum"] == 3 * 3 * (1 + 1)
    assert c["time_total"]["min"] > 0
