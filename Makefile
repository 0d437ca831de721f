# tapio: the two commands of the README, and the steps they are made of.
#   make demo   set up, build, run the LICOM-like demo on 4 ranks and report its profile
#   make test   set up, build, run every test (GoogleTest units, MPI tests at 1-8 ranks, pytest,
#               and a short run of each fuzz target), then list the tests that were skipped
#   make fuzz   run each fuzz target for FUZZ_SECONDS (tests/fuzz), and the 1,000-step
#               concurrency test
#   make test-asan / make test-tsan   the whole suite under AddressSanitizer + UBSan / TSan
#   make test-large   the 64-bit tests that need 7 GiB of memory and of disk
#   make test-pio-real   PIO's own tests (tests/pio_suite) against the real PIO 2.7.0, which
#               they run against tapio's PIO layer in make test: proves the harness
#   make bench-pio   PIO's pioperformance on E3SM's decompositions (part of make bench)
BUILD ?= build
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
NP ?= 4
# Open MPI by name: Debian's plain mpicc/mpiexec follow its alternatives, which may point at
# MPICH, and the peers the benchmark links (PnetCDF, HDF5, ADIOS) are built with Open MPI.
# Another MPI: make MPICC=mpicc.mpich MPICXX=mpicxx.mpich MPIFC=mpif90.mpich MPIEXEC=mpiexec.mpich
#   BUILD=build-mpich
MPICC ?= mpicc.openmpi
MPICXX ?= mpicxx.openmpi
MPIEXEC ?= mpiexec.openmpi
MPIFC ?= mpif90.openmpi
CMAKE_MPI = -DMPI_C_COMPILER=$(shell command -v $(MPICC)) -DMPI_CXX_COMPILER=$(shell command -v $(MPICXX)) \
            -DMPI_Fortran_COMPILER=$(shell command -v $(MPIFC)) \
            -DTAPIO_MPIEXEC=$(shell command -v $(MPIEXEC))
# Open MPI runs as root and oversubscribes (NP ranks on fewer cores) only when its environment
# allows it; other MPIs ignore these, whereas MPICH's mpiexec rejects an --oversubscribe flag.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1
export OMPI_MCA_rmaps_base_oversubscribe = 1
# ccache (when installed) shares compiled objects between clones and trees of the same sources:
# paths are hashed relative to the clone, and the working directory is not hashed.
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR = 1

.PHONY: setup setup-system venv configure build python demo demo-build test unit-mpi pytest install clean bench fuzz-build fuzz test-asan \
        test-tsan test-sanitized test-large test-pio-real pio-real pio-real-configure bench-pio

# The Debian packages, then the Python venv (scripts/setup.sh). The venv's compiles and
# downloads run beside the C++ build where the two commands need both (make -j2 venv ...).
setup:
	bash scripts/setup.sh
setup-system:
	bash scripts/setup.sh --system
venv: setup-system
	bash scripts/setup.sh --python

configure: setup-system
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_MPI)

build: configure
	cmake --build $(BUILD) -j2

# The Python package (python/: scikit-build-core + nanobind) into .venv, linking this build's
# libtapio (the build tree is a CMake package: tapio_DIR), which is all it needs of the build.
python: configure venv
	cmake --build $(BUILD) -j2 --target tapio
	.venv/bin/pip install -q --no-build-isolation ./python \
	  -Ccmake.define.tapio_DIR=$(abspath $(BUILD))/src/api $(PYTHON_CCACHE)
PYTHON_CCACHE = $(if $(shell command -v ccache),-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)

# The demo's writer profiles itself (examples/licom_demo.toml); tapio report reads the profile
# through the Python package (hence `python`) and draws it. Only what it runs is built: the
# library, the command, the demo program (not the tests and the benchmark).
demo:
	$(MAKE) --no-print-directory -j2 venv demo-build
	$(MAKE) --no-print-directory python
	cd $(BUILD) && TAPIO_CONFIG=$(abspath examples/licom_demo.toml) \
	  $(MPIEXEC) -n $(NP) examples/licom_demo licom_demo.nc 3
	$(BUILD)/tools/tapio ls $(BUILD)/licom_demo.nc
	$(BUILD)/tools/tapio report $(BUILD)/licom_demo.profile.json \
	  --plot $(BUILD)/licom_demo_report.png

demo-build: configure
	cmake --build $(BUILD) -j2 --target tapio tapio_cli licom_demo

# Each runner leaves a report in $(BUILD)/test-results, from which the last step lists every
# skipped test with its reason, and fails when a skip is not for a missing optional peer.
# pytest runs on three workers, each taking a whole test file at a time (a file's module
# fixtures, compiled programs among them, are made once): most of its time is spent waiting for
# mpiexec and for the writers it kills, not computing, as ctest's -j2. The slowest tests are
# listed. The fuzz tree compiles meanwhile at the lowest priority (nice 19), in the time the
# tests leave the cores idle, and its short run follows there; their log is
# test-results/fuzz.log, whose results are printed at the end.
RESULTS = $(abspath $(BUILD))/test-results
PYTEST_WORKERS ?= -n 3 --dist loadfile
test:
	$(MAKE) --no-print-directory -j2 venv build
	$(MAKE) --no-print-directory python
	rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	(nice -n 19 $(MAKE) --no-print-directory fuzz-build && \
	  nice -n 19 bash tests/fuzz/run.sh $(FUZZ_BUILD) --runs 20000) >$(RESULTS)/fuzz.log 2>&1 & \
	fuzz=$$!; \
	{ (cd $(BUILD) && ctest -j2 --output-on-failure --output-junit $(RESULTS)/ctest.xml $(CTEST_ARGS)) && \
	  TAPIO_BUILD_DIR=$(abspath $(BUILD)) TAPIO_MPIEXEC=$(MPIEXEC) .venv/bin/python -m pytest -q \
	    $(PYTEST_WORKERS) --durations=15 --junitxml=$(RESULTS)/pytest.xml tests/py; }; \
	tests=$$?; wait $$fuzz; fuzzed=$$?; grep '^fuzz ' $(RESULTS)/fuzz.log; \
	[ $$fuzzed = 0 ] || { tail -n 30 $(RESULTS)/fuzz.log; exit 1; }; exit $$tests
	python3 tests/skipped_tests.py $(BUILD)

# The fuzz targets need clang with libFuzzer and every object instrumented: a tree of their own.
fuzz-build: setup
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DTAPIO_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j2

# The long reliability runs: each fuzz target for FUZZ_SECONDS, and readers polling while
# writers append for 1,000 steps per engine (make test runs 100).
fuzz: build fuzz-build
	nice -n 19 bash tests/fuzz/run.sh $(FUZZ_BUILD) --time $(FUZZ_SECONDS)
	TAPIO_CONCURRENCY_STEPS=1000 $(MPIEXEC) -n 6 $(BUILD)/tests/concurrency_test

# The 64-bit tests that need memory and disk: puts over 2 GiB on one rank, a subfile data
# file over 4 GiB (make test runs the sparse ones: a variable over 2^32 elements).
test-large: build
	cd $(BUILD) && TAPIO_LARGE_TESTS=1 ctest -R large_test --output-on-failure

# PIO's own tests against the real PIO, built once into ~/.cache/tapio (scripts/install_pio.sh,
# part of setup.sh --bench), in a tree of their own that builds no tapio.
PIO_REAL_BUILD ?= build-pio-real
pio-real-configure: setup
	bash scripts/install_pio.sh
	cmake -S tests/pio_suite -B $(PIO_REAL_BUILD) -G Ninja -DTAPIO_PIO_SUITE_LIBRARY=real \
	  -DTAPIO_PIO_SUITE_ALL_RUNS=ON \
	  -DMPI_Fortran_COMPILER=$(shell command -v $(MPIFC)) \
	  -DMPI_C_COMPILER=$(shell command -v $(MPICC)) -DTAPIO_MPIEXEC=$(shell command -v $(MPIEXEC))
pio-real: pio-real-configure
	cmake --build $(PIO_REAL_BUILD) -j2
test-pio-real: pio-real
	cd $(PIO_REAL_BUILD) && ctest -j2 --output-on-failure $(CTEST_ARGS)

# PIO's pioperformance (scripts/bench_pio.py) with the real PIO, and with tapio's PIO layer
# when this build has it, interleaved; the table lands in $(BUILD)/bench/pioperf/pioperf.md.
# PIO_BENCH_* (the script's docstring) choose cases, storage and reps: the whole table takes
# about 25 minutes on 2 loaded cores.
TAPIO_PIOPERF = $(BUILD)/tests/pio_suite/pioperf
bench-pio: pio-real-configure
	cmake --build $(PIO_REAL_BUILD) -j2 --target pio_pioperf
	cmake --build $(BUILD) -j2 --target pio_pioperf 2>/dev/null || echo "bench-pio: no tapio" \
	  "pioperformance in $(BUILD) (it needs tapio's Fortran pio module): the real PIO only"
	MPIEXEC=$(MPIEXEC) python3 scripts/bench_pio.py $(BUILD)/bench/pioperf real=$(abspath $(PIO_REAL_BUILD))/pioperf \
	  $$([ -x $(TAPIO_PIOPERF) ] && echo tapio=$(abspath $(TAPIO_PIOPERF)))

# The whole suite built with sanitizers, each in a tree of its own (suppressions: tests/sanitizers).
test-asan:
	$(MAKE) test-sanitized SAN_BUILD=build-asan SANITIZE=address,undefined
test-tsan:
	$(MAKE) test-sanitized SAN_BUILD=build-tsan SANITIZE=thread
test-sanitized: setup
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_MPI) \
	  -DTAPIO_SANITIZE=$(SANITIZE) -DTAPIO_BUILD_BENCH=OFF
	cmake --build $(SAN_BUILD) -j2
	export TAPIO_SANITIZE=$(SANITIZE) && . tests/sanitizers/env.sh && cd $(SAN_BUILD) && \
	  python3 $(CURDIR)/tests/sanitizers/ctest_rerun_tool_crashes.py -j2 --output-on-failure $(CTEST_ARGS)
	export TAPIO_SANITIZE=$(SANITIZE) && . tests/sanitizers/env.sh && \
	  TAPIO_BUILD_DIR=$(abspath $(SAN_BUILD)) \
	  TAPIO_MPIEXEC=$(MPIEXEC) .venv/bin/python -m pytest -q $(SAN_PYTEST_WORKERS) tests/py
# Sanitized programs take several times the memory and CPU: two pytest workers.
SAN_PYTEST_WORKERS ?= -n 2 --dist loadfile

bench:
	BUILD=$(BUILD) NP=$(NP) MPICC=$(MPICC) MPICXX=$(MPICXX) MPIEXEC=$(MPIEXEC) bash scripts/bench.sh
	$(MAKE) bench-pio

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
