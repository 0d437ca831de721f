#!/usr/bin/env bash
# Idempotent setup: the Debian packages tapio builds and tests with (gfortran for the Fortran
# module, netCDF-Fortran as its independent peer), and a Python venv for the independent readers
# used by the tests (netCDF4-python, numpy, pytest and pytest-xdist), for `tapio report`'s plots
# (matplotlib) and for building the Python binding (scikit-build-core, nanobind, mpi4py, xarray,
# dask).
# Usage: scripts/setup.sh [--bench | --system | --python]   (--bench adds the peer libraries the
# benchmark compares with, ADIOS2 among them: built from source into .venv by
# scripts/install_adios2.sh, and the real PIO 2.7.0, built offline into ~/.cache/tapio by
# scripts/install_pio.sh; --system installs only the Debian packages, --python only the venv, so
# that make demo builds the library while the venv installs)
set -euo pipefail
cd "$(dirname "$0")/.."
part="${1:-}"

core_pkgs=(cmake ninja-build g++ pkg-config make ccache strace
  openmpi-bin libopenmpi-dev
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libxxhash-dev libfmt-dev libgtest-dev
  libhwloc-dev netcdf-bin python3-venv gfortran libnetcdff-dev
  libzstd-dev libzfp-dev  # per-variable operators of the subfile engine (docs/formats.md)
  libutf8proc-dev  # names in Unicode NFC, as netCDF-C normalizes them (core/names.h)
  libpnetcdf-dev  # PIO's test_darray_multivar checks PnetCDF itself (tests/pio_suite)
  clang libfuzzer-14-dev libclang-rt-14-dev)  # the fuzz targets (a short run is part of make test)
bench_pkgs=(pnetcdf-bin libhdf5-openmpi-dev libbenchmark-dev
  libadios-openmpi-dev libnetcdf-mpi-dev liblz4-dev libblosc-dev libbz2-dev)
pkgs=("${core_pkgs[@]}")
[[ "${1:-}" == "--bench" ]] && pkgs+=("${bench_pkgs[@]}")

missing=()
[[ "$part" == "--python" ]] && pkgs=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""; [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[[ "$part" == "--system" ]] && exit 0

# mpi4py is compiled against Open MPI (MPICC): a wheel built for another MPI would bring a second
# MPI into the process that loads libtapio, and two MPIs in one process crash. It is compiled
# at -O1 without debug information (CFLAGS come after Python's -O3 -g): at -O3 -g its one C file
# took about two of the venv's three and a half minutes on a fresh machine, and nothing here is
# bound by mpi4py's speed.
venv_modules="netCDF4, numpy, pytest, xdist, mpi4py, nanobind, scikit_build_core, xarray, dask, matplotlib"
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c "import $venv_modules" 2>/dev/null; then
  [[ -x .venv/bin/python ]] || python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  MPICC="${MPICC:-mpicc.openmpi}" CFLAGS="${CFLAGS:--O1 -g0}" \
    .venv/bin/pip install -q -r python/requirements-test.txt
fi

if [[ "${1:-}" == "--bench" ]] && ! .venv/bin/python -c "import matplotlib" 2>/dev/null; then
  .venv/bin/pip install -q -r python/requirements-bench.txt
fi

# ADIOS2 is built from source: when that fails the benchmark goes on without its adios2 peers
# (reported as not built), not without the others.
if [[ "${1:-}" == "--bench" ]]; then
  bash scripts/install_adios2.sh ||
    echo "setup: going on without ADIOS2; tapio-bench reports the adios2 methods as not built" >&2
fi

# The real PIO, tapio's PIO layer's peer (tests/pio_suite with TAPIO_PIO_SUITE_LIBRARY=real, and
# pioperformance): when its build fails the benchmark goes on without it.
if [[ "${1:-}" == "--bench" ]]; then
  bash scripts/install_pio.sh ||
    echo "setup: going on without the real PIO; its peer runs are not built" >&2
fi
