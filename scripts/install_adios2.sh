#!/usr/bin/env bash
# ADIOS2 for tapio-bench's adios2 peers, run by `scripts/setup.sh --bench` only: PyPI's adios2
# package built from source with MPI into the project's venv (.venv). Debian has no MPI build of
# ADIOS2 and PyPI's wheels are serial. The package installs the C++ libraries
# (libadios2_cxx_mpi.so, libadios2_core_mpi.so, ...), their headers and CMake package under
# site-packages/adios2/, where bench/CMakeLists.txt finds them.
# - MPI: Debian's Open MPI by its wrappers, the MPI tapio-bench links (two MPIs in one process
#   crash); Debian's plain mpicc may be MPICH.
# - Options: the package's own (Fortran, HDF5, ZFP, SZ, ... off; testing off; Release) plus MPI
#   on and every optional feature the benchmark does not use off (SST, CURL, OpenSSL, campaign
#   files, ...): BP5 with its shared-memory aggregation is what it measures. The Python bindings
#   stay out: with MPI they need mpi4py in the build environment, and tapio-bench uses C++.
# - Cached: skipped when this version is installed (7-8 minutes on 2 cores otherwise).
#   pip's wheel cache is not used: its key ignores CMAKE_ARGS, so it could hand back a serial build.
# Exit status non-zero on failure (the log is .venv/adios2-install.log); setup.sh goes on, and
# tapio-bench then reports the adios2 methods as not built.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=2.12.1.1001
LOG=.venv/adios2-install.log

site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
if [[ $(.venv/bin/pip show adios2 2>/dev/null | sed -n 's/^Version: //p') == "$VERSION" &&
      -f $site/adios2/libadios2_cxx_mpi.so ]]; then
  exit 0
fi

off=(SST CURL OpenSSL Campaign PNG Sodium XRootD Catalyst DAOS UCX MHS BigWhoop Caliper
  LIBPRESSIO MGARD SZ3 PRODM DataSpaces IME)
args="-DADIOS2_USE_MPI=ON -DMPI_C_COMPILER=$(command -v mpicc.openmpi)"
args+=" -DMPI_CXX_COMPILER=$(command -v mpicxx.openmpi)"
for o in "${off[@]}"; do args+=" -DADIOS2_USE_$o=OFF"; done

echo "setup: building ADIOS2 $VERSION from PyPI's source with MPI into .venv (7-8 minutes on 2 cores; log: $LOG)"
start=$SECONDS
if ! CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL=2 .venv/bin/pip install -v --no-cache-dir \
    --no-binary adios2 "adios2==$VERSION" >"$LOG" 2>&1; then
  echo "setup: building ADIOS2 failed (see $LOG)" >&2
  exit 1
fi
if [[ ! -f $site/adios2/libadios2_cxx_mpi.so ]]; then
  echo "setup: ADIOS2 installed without its MPI C++ library (see $LOG)" >&2
  exit 1
fi
echo "setup: ADIOS2 $VERSION installed in $((SECONDS - start)) s"
