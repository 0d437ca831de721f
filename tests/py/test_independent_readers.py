"""Files tapio writes, read by independent readers (netCDF4-python, ncdump) with exact values.

Values follow the benchmark contract: element g (global linear index within one record) of the
v-th variable at step s holds g + v/4 + s * 2^20."""
import subprocess

import netCDF4
import numpy as np
import pytest

from conftest import SHARED, mpirun

NC_FILL_DOUBLE = 9.9692099683868690e36


def expected(shape, v, s):
    return np.arange(np.prod(shape), dtype=np.float64).reshape(shape) + v / 4.0 + s * 2.0**20


@pytest.mark.parametrize("ranks", [1, 4])
def test_licom_demo_reads_in_netcdf4_python(build, tmp_path, ranks):
    path = tmp_path / "licom.nc"
    out = mpirun(ranks, build / "examples" / "licom_demo", path, 3)
    assert "all values correct" in out
    with netCDF4.Dataset(path) as ds:
        assert ds.file_format == "NETCDF3_64BIT_DATA"  # CDF-5
        assert ds.title == "LICOM-like ocean history (tapio demo)"
        assert ds.dimensions["time"].isunlimited() and len(ds.dimensions["time"]) == 3
        names = ["temp", "salt", "u", "v", "ssh", "mld"]
        for v, name in enumerate(names):
            var = ds.variables[name]
            assert var.dimensions[0] == "time"
            for s in range(3):
                want = expected(var.shape[1:], v, s)
                np.testing.assert_array_equal(var[s].data, want, err_msg=f"{name} step {s}")
        assert ds.variables["temp"].units == "degC"
        lat = ds.variables["lat"][:].data
        np.testing.assert_array_equal(lat, -90.0 + 180.0 * (np.arange(96) + 0.5) / 96)


def test_ncdump_reads_the_demo(build, tmp_path):
    path = tmp_path / "licom.nc"
    mpirun(2, build / "examples" / "licom_demo", path, 2)
    header = subprocess.run(["ncdump", "-h", str(path)], capture_output=True, text=True,
                            check=True, timeout=60).stdout
    assert "time = UNLIMITED ; // (2 currently)" in header
    assert "double temp(time, depth, lat, lon) ;" in header
    values = subprocess.run(["ncdump", "-v", "lat", str(path)], capture_output=True, text=True,
                            check=True, timeout=60).stdout
    assert "lat = -89.0625, -87.1875," in values


@pytest.mark.parametrize("ranks", [4, 8])
@pytest.mark.parametrize("case", ["f", "g", "i"])
def test_e3sm_maps_replayed(build, tmp_path, case, ranks):
    """The real E3SM decompositions (16 processes) re-split over 4 and 8 ranks, written with
    their irregular runs by the default (collective) engine and read back by it; every covered
    element checked, holes (I case land) are fill values."""
    map_path = SHARED / "data" / "e3sm-io" / f"map_{case}_case_16p.nc"
    out_path = tmp_path / f"e3sm_{case}.nc"
    out = mpirun(ranks, build / "examples" / "e3sm_replay", map_path, out_path, 2)
    assert "MISMATCH" not in out
    with netCDF4.Dataset(map_path) as maps, netCDF4.Dataset(out_path) as ds:
        k = 1
        while f"D{k}.nreqs" in maps.variables:
            dims = np.atleast_1d(getattr(maps, f"D{k}.dims"))
            covered = np.zeros(int(np.prod(dims)), dtype=bool)
            for off, length in zip(maps.variables[f"D{k}.offsets"][:], maps.variables[f"D{k}.lengths"][:]):
                covered[off:off + length] = True
            var = ds.variables[f"D{k}_var"]
            assert var.shape[1:] == tuple(int(d) for d in dims)
            for s in range(2):
                got = var[s].data.reshape(-1)
                want = np.where(covered, expected(covered.shape, k - 1, s), NC_FILL_DOUBLE)
                np.testing.assert_array_equal(got, want, err_msg=f"D{k} step {s}")
            k += 1
        assert k > 1
