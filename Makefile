# tapio: the two commands of the README, and the steps they are made of.
#   make demo   set up, build, run the LICOM-like demo on 4 ranks
#   make test   set up, build, run every test (GoogleTest units, MPI tests at 1-8 ranks, pytest)
BUILD ?= build
NP ?= 4
MPIEXEC ?= mpiexec.openmpi
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

.PHONY: setup build demo test unit-mpi pytest install clean bench

setup:
	bash scripts/setup.sh

build: setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j2

demo: build
	$(MPIEXEC) --oversubscribe -n $(NP) $(BUILD)/examples/licom_demo $(BUILD)/licom_demo.nc 3
	$(BUILD)/tools/tapio ls $(BUILD)/licom_demo.nc

test: build
	cd $(BUILD) && ctest -j2 --output-on-failure
	TAPIO_BUILD_DIR=$(abspath $(BUILD)) .venv/bin/python -m pytest -q tests/py

bench:
	BUILD=$(BUILD) NP=$(NP) MPIEXEC=$(MPIEXEC) bash scripts/bench.sh

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
