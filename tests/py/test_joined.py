"""Joined arrays end to end: particles written at 1 to 8 ranks with counts that vary per rank
and step (some ranks with none), as a subfile dataset converted by `tapio convert` to a CF
contiguous ragged-array NetCDF file, or as that file directly by the collective engine, and read
by netCDF4-python and xarray with no tapio code: per-step counts from the
count variables, values from the ragged variables (docs/format.md, "Joined arrays in NetCDF")."""
import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import BUILD, mpirun

sys.path.insert(0, str(Path(__file__).parent))
from joined_writer import count_of, values  # noqa: E402

netCDF4 = pytest.importorskip("netCDF4")
STEPS = 4


def expected(value_species, count_species, width, ranks, step):
    """The step's whole ragged rows: every rank's, in rank order."""
    return np.concatenate([values(value_species, r, step, count_of(count_species, r, step), width)
                           for r in range(ranks)])


@pytest.mark.parametrize("engine,reserve", [("subfile", None), ("collective", None),
                                            ("collective", "256"), ("convert+append", None)])
@pytest.mark.parametrize("ranks", [1, 2, 3, 8])
def test_ragged_file_reads_without_tapio(engine, reserve, ranks, tmp_path, python_binding):
    # subfile: the dataset converted by `tapio convert`; collective: written as NetCDF directly,
    # with a reservation of 256 bytes also (the file grows it, moving what lies after it);
    # convert+append: half the steps converted, the rest appended by the collective engine
    # (the converted file has no room: the first appended step grows it).
    out = tmp_path / "particles.nc"
    writer = Path(__file__).parent / "joined_writer.py"
    if engine == "collective":
        mpirun(ranks, sys.executable, writer, out, STEPS, engine, *([reserve] if reserve else []),
               timeout=240)
    else:
        dataset = tmp_path / "particles"
        converted = STEPS // 2 if engine == "convert+append" else STEPS
        mpirun(ranks, sys.executable, writer, dataset, converted, timeout=240)
        mpirun(min(ranks, 2), BUILD / "tools" / "tapio", "convert", dataset, out)
        if converted < STEPS:
            mpirun(ranks, sys.executable, writer, out, STEPS - converted, "collective", "",
                   converted, timeout=240)
    electrons = [sum(count_of(0, r, s) for r in range(ranks)) for s in range(STEPS)]
    ions = [sum(count_of(2, r, s) for r in range(ranks)) for s in range(STEPS)]
    with netCDF4.Dataset(out) as nc:
        nc.set_auto_mask(False)
        assert nc.dimensions["electron"].size == sum(electrons)
        assert nc.dimensions["ion"].size == sum(ions)
        assert nc.dimensions["time"].isunlimited()
        count = nc.variables["electron_count"]
        assert count.dimensions == ("time",)
        assert count.getncattr("sample_dimension") == "electron"
        assert list(count[:]) == electrons
        assert list(nc.variables["ion_count"][:]) == ions
        assert nc.variables["e_pos"].dimensions == ("electron", "xyz")
        assert nc.variables["e_pos"].getncattr("units") == "m"
        ends = np.cumsum(count[:])
        for s in range(STEPS):
            rows = slice(ends[s] - electrons[s], ends[s])
            np.testing.assert_array_equal(nc.variables["e_pos"][rows], expected(0, 0, 3, ranks, s))
            np.testing.assert_array_equal(nc.variables["e_weight"][rows],
                                          expected(1, 0, 1, ranks, s))
        assert list(nc.variables["energy"][:]) == [s * 0.5 for s in range(STEPS)]
    xr = pytest.importorskip("xarray")
    with xr.open_dataset(out) as ds:
        assert ds["ion_count"].attrs["sample_dimension"] == "ion"
        ends = np.cumsum(ds["ion_count"].values)
        for s in range(STEPS):
            step = ds["ion_x"].isel(ion=slice(ends[s] - ions[s], ends[s]))
            np.testing.assert_array_equal(step.values, expected(2, 2, 1, ranks, s))


@pytest.mark.parametrize("seed", range(3))
def test_collective_ragged_file_survives_sigkill(seed, tmp_path, python_binding):
    # The collective engine streams particles into a NetCDF file with 512 bytes of room, so the
    # file grows it and moves its record section again and again. Killed with SIGKILL at a
    # seeded moment, it leaves every step printed as committed readable, exact, by
    # netCDF4-python (docs/design.md, "Joined arrays in NetCDF files").
    from crash_harness import Writer
    out = tmp_path / "crash.nc"
    ranks = 2
    writer = Writer(ranks, sys.executable, Path(__file__).parent / "joined_writer.py", out, -1,
                    "collective", "512")
    try:
        writer.wait_committed(2 + 3 * seed)
        time.sleep(random.Random(seed).uniform(0.0, 0.2))
        writer.drain()
        committed = writer.kill()
    finally:
        writer.cleanup()
    with netCDF4.Dataset(out) as nc:
        nc.set_auto_mask(False)
        steps = len(nc.dimensions["time"])
        # No upper bound: every step the file holds is checked exactly below, and mpiexec
        # may not have forwarded the last lines when it was killed (11 of them at a load
        # average of 10).
        assert committed <= steps
        electrons = [sum(count_of(0, r, s) for r in range(ranks)) for s in range(steps)]
        ions = [sum(count_of(2, r, s) for r in range(ranks)) for s in range(steps)]
        assert list(nc.variables["electron_count"][:]) == electrons
        assert list(nc.variables["ion_count"][:]) == ions
        assert nc.dimensions["electron"].size == sum(electrons)
        assert list(nc.variables["energy"][:]) == [s * 0.5 for s in range(steps)]
        e_end, i_end = np.cumsum(electrons), np.cumsum(ions)
        for s in range(steps):
            rows = slice(e_end[s] - electrons[s], e_end[s])
            np.testing.assert_array_equal(nc.variables["e_pos"][rows], expected(0, 0, 3, ranks, s))
            np.testing.assert_array_equal(nc.variables["e_weight"][rows],
                                          expected(1, 0, 1, ranks, s))
            np.testing.assert_array_equal(nc.variables["ion_x"][i_end[s] - ions[s]:i_end[s]],
                                          expected(2, 2, 1, ranks, s))


def test_ls_and_dump_show_the_ragged_view(tmp_path, python_binding):
    dataset = tmp_path / "particles"
    mpirun(2, sys.executable, Path(__file__).parent / "joined_writer.py", dataset, 2)
    listing = mpirun(1, BUILD / "tools" / "tapio", "ls", dataset)
    assert "electron_count" in listing and "e_pos" in listing
    dumped = mpirun(1, BUILD / "tools" / "tapio", "dump", dataset, "ion_x")
    values_shown = [float(v) for v in dumped.replace(",", " ").split()
                    if v.replace(".", "").replace("-", "").replace("e+", "").isdigit()]
    want = np.concatenate([expected(2, 2, 1, 2, s) for s in range(2)])
    assert values_shown[-len(want):] == list(want)


def test_xarray_backend_shows_the_dataset_as_convert_writes_it(tmp_path, python_binding):
    # xr.open_dataset(dataset, engine="tapio") reads the joined variables lazily through tapio,
    # in the converted file's ragged form: the same variables, dimensions and values.
    xr = pytest.importorskip("xarray")
    dataset = tmp_path / "particles"
    mpirun(3, sys.executable, Path(__file__).parent / "joined_writer.py", dataset, STEPS)
    out = tmp_path / "particles.nc"
    mpirun(1, BUILD / "tools" / "tapio", "convert", dataset, out)
    with xr.open_dataset(dataset, engine="tapio") as got, xr.open_dataset(out) as want:
        for name in ("e_pos", "e_weight", "ion_x", "electron_count", "ion_count"):
            assert got[name].dims == want[name].dims, name
            np.testing.assert_array_equal(got[name].values, want[name].values, name)
        assert got["ion_count"].attrs["sample_dimension"] == "ion"
        # A slice across steps and a single row read only what they touch.
        np.testing.assert_array_equal(got["e_pos"][5:40:3, 1].values,
                                      want["e_pos"][5:40:3, 1].values)
        np.testing.assert_array_equal(got["ion_x"][7].values, want["ion_x"][7].values)


def test_c_example_round_trip_and_convert(tmp_path, build):
    # examples/particles.c at 4 ranks: writes, reads every step back crossing the writers'
    # blocks and checks each value; the converted file's counts are its per-rank counts' sums.
    dataset = tmp_path / "particles"
    out = mpirun(4, build / "examples" / "particles", dataset, 5)
    assert "5 steps of particles written and read back: 0 wrong values" in out, out
    mpirun(2, BUILD / "tools" / "tapio", "convert", dataset, tmp_path / "p.nc")
    counts = [sum(0 if (r + s) % 3 == 0 else 1000 + 300 * r + 70 * s for r in range(4))
              for s in range(5)]
    with netCDF4.Dataset(tmp_path / "p.nc") as nc:
        assert list(nc.variables["particle_count"][:]) == counts
        assert nc.variables["pos"].shape == (sum(counts), 3)
        assert nc.variables["id"][counts[0]] == 0  # step 1's first particle: rank 0's first
