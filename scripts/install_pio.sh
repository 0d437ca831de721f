#!/usr/bin/env bash
# The real NCAR ParallelIO (PIO) 2.7.0, the peer of tapio's PIO layer (issue 25), run by
# `scripts/setup.sh --bench` only: built from ../shared/third_party's tarball, offline, against
# Debian's PnetCDF, netCDF and Open MPI, with Fortran and GPTL timing on, and installed into a
# cache outside the source tree (PIO_HOME, default ~/.cache/tapio/pio-2.7.0), where
# tests/pio_suite (-DTAPIO_PIO_SUITE_LIBRARY=real) and the benchmark find it.
# - Offline: PIO's CMake clones CESM's CMake_Fortran_utils from the network; its copy in
#   ../shared/third_party is passed unpacked (USER_CMAKE_MODULE_PATH), and genf90 comes from
#   PIO's own scripts/ folder (GENF90_PATH).
# - Open MPI by its wrappers, the MPI tapio links (Debian's plain mpicc may be MPICH).
# - The installed gptl.h (timing on) includes cmake_fortran_c_interface.h, which PIO generates
#   in its build tree and does not install: copied into the install's include/.
# - The library only: tests/pio_suite builds PIO's tests and pioperformance itself.
# - Cached: skipped when the install holds libpioc and libpiof.
# Exit status non-zero on failure (the log is $PIO_HOME/build.log).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=2.7.0
THIRD_PARTY=${TAPIO_THIRD_PARTY:-$(cd .. && pwd)/shared/third_party}
PIO_HOME=${PIO_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/tapio/pio-$VERSION}
PREFIX=$PIO_HOME/install
LOG=$PIO_HOME/build.log

if [[ -f $PREFIX/lib/libpioc.a && -f $PREFIX/lib/libpiof.a &&
      -f $PREFIX/include/cmake_fortran_c_interface.h ]]; then
  exit 0
fi
for f in ParallelIO-$VERSION.tar.gz CMake_Fortran_utils.tar.gz; do
  if [[ ! -f $THIRD_PARTY/$f ]]; then
    echo "setup: $THIRD_PARTY/$f is missing: cannot build the real PIO $VERSION" >&2
    exit 1
  fi
done

# Unpacked once; a build that failed half-way goes on from where it stopped.
if [[ ! -f $PIO_HOME/src/CMakeLists.txt || ! -f $PIO_HOME/cmake_fortran_utils/CESM_utils.cmake ]]; then
  rm -rf "$PIO_HOME"
  mkdir -p "$PIO_HOME/src" "$PIO_HOME/cmake_fortran_utils"
  tar -xzf "$THIRD_PARTY/ParallelIO-$VERSION.tar.gz" -C "$PIO_HOME/src" --strip-components=1
  tar -xzf "$THIRD_PARTY/CMake_Fortran_utils.tar.gz" -C "$PIO_HOME/cmake_fortran_utils" \
    --strip-components=1
fi

echo "setup: building the real PIO $VERSION into $PIO_HOME (a few minutes on 2 cores; log: $LOG)"
start=$SECONDS
if ! {
  cmake -S "$PIO_HOME/src" -B "$PIO_HOME/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DWITH_PNETCDF=ON -DPIO_ENABLE_FORTRAN=ON \
    -DPIO_ENABLE_TIMING=ON -DPIO_ENABLE_DOC=OFF -DPIO_ENABLE_EXAMPLES=OFF \
    -DCMAKE_C_COMPILER="$(command -v mpicc.openmpi)" \
    -DCMAKE_Fortran_COMPILER="$(command -v mpif90.openmpi)" \
    -DUSER_CMAKE_MODULE_PATH="$PIO_HOME/cmake_fortran_utils" \
    -DGENF90_PATH="$PIO_HOME/src/scripts" -DWITH_MPIEXEC="$(command -v mpiexec.openmpi)" &&
    cmake --build "$PIO_HOME/build" -j2 &&
    cmake --install "$PIO_HOME/build" &&
    cp "$PIO_HOME/build/src/gptl/cmake_fortran_c_interface.h" "$PREFIX/include/"
} >"$LOG" 2>&1; then
  echo "setup: building the real PIO $VERSION failed (see $LOG)" >&2
  exit 1
fi
echo "setup: PIO $VERSION installed in $PREFIX in $((SECONDS - start)) s"
