"""One tapio-bench run with the collective engine and tapio parameters set through a
TAPIO_CONFIG rule, for scripts/sim_validate.py and scripts/sim_sweep.py: its write MiB/s
(median, min, max over --reps)."""
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.openmpi")


def write_mib_s(build, ranks, pattern_args, params, reps, directory="/tmp", write_params=None):
    """write_params: parameters for the timed writes only (tapio-bench's IOs "bench.*.w.*")."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "tapio.toml")
        with open(cfg, "w") as f:
            f.write("[[rule]]\n" + "".join(f'{k} = "{v}"\n' for k, v in params.items()))
            if write_params:
                f.write('[[rule]]\nio = "bench.*.w.*"\n' +
                        "".join(f'{k} = "{v}"\n' for k, v in write_params.items()))
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ, TAPIO_CONFIG=cfg, OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
        subprocess.run([MPIEXEC, "-n", str(ranks), os.path.join(build, "bench", "tapio-bench"),
                        *pattern_args, "--methods", "collective", "--reps", str(reps), "--dir",
                        directory, "--json", out], check=True, env=env, capture_output=True, cwd=ROOT)
        with open(out) as f:
            return json.load(f)["results"]["collective"]["write_mib_s"]
