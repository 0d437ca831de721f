#!/usr/bin/env bash
# make bench: the standard set of tapio-bench runs at NP ranks, on disk (/tmp) and in memory
# (/dev/shm), JSON into $BUILD/bench/, then docs/benchmarks.md and docs/img/*.png regenerated;
# last, buffer_size = stripe_size = auto against a sweep of their candidates (sim_sweep.md).
# Open MPI picks its MPI-IO component once per process (OMPI_MCA_io, read at MPI_Init), so each
# case runs twice: every method under the default component (ompio), then raw + collective +
# mpiio-romio under OMPI_MCA_io=romio321 with ROMIO_REPS repetitions; the report merges the
# two (raw is in both as the reference) and takes the collective-versus-ROMIO ratios from the
# second run, where the two are interleaved (the collective engine does not use MPI-IO).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
NP=${NP:-4}
REPS=${REPS:-3}
ROMIO_REPS=${ROMIO_REPS:-7}
MPIEXEC=${MPIEXEC:-mpiexec.openmpi}
MPICC=${MPICC:-mpicc.openmpi}
MPICXX=${MPICXX:-mpicxx.openmpi}
# Open MPI: allow root, and oversubscription (16 ranks below); other MPIs ignore these, whereas
# MPICH's mpiexec rejects the --oversubscribe flag. Only Open MPI's launcher takes -x (forward a
# variable to the ranks) for the romio run's OMPI_MCA_io; other MPIs' MPI-IO is ROMIO anyway.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
FORWARD_IO=()
if [[ $("$MPIEXEC" --version 2>&1) =~ Open\ MPI|OpenRTE ]]; then FORWARD_IO=(-x OMPI_MCA_io); fi

bash scripts/setup.sh --bench
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMPI_C_COMPILER="$(command -v "$MPICC")" -DMPI_CXX_COMPILER="$(command -v "$MPICXX")" \
  -DTAPIO_MPIEXEC="$(command -v "$MPIEXEC")" >/dev/null
cmake --build "$BUILD" --target tapio-bench -j2
BIN="$BUILD/bench/tapio-bench"
OUT="$BUILD/bench"
mkdir -p "$OUT"
rm -f "$OUT"/*.json

# label | pattern and parameters (sized to finish in minutes on 2 cores)
CASES=(
  "licom|licom --grid 144x96x30 --vars3d 4 --vars2d 2 --steps 5"
  "hpio-noncontig|hpio --count 8192 --size 256 --spacing 256 --mem noncontig --file noncontig"
  "hpio-contig|hpio --count 8192 --size 256 --spacing 0 --mem contig --file contig"
  "hpio-small|hpio --count 262144 --size 8 --spacing 0 --mem contig --file noncontig"
  "matrix-block|matrix --rows 70400 --cols 200 --dist block"
  "matrix-cyclic|matrix --rows 70400 --cols 200 --dist cyclic --nb 16"
  "shared-read|shared-read --mib 64"
  "e3sm-f|e3sm --case f --vars-per-decomp 16 --steps 2"
  "e3sm-g|e3sm --case g --steps 2"
  "e3sm-i|e3sm --case i --vars-per-decomp 8 --steps 2"
)
# The selection pattern (issue 10 item 7): rank 0 reads one block-sized tile of the middle step,
# then of every step, from 1,000 blocks x 100 steps, with the methods that can find it (raw
# cannot) and the HDF5 (chunked by block), PnetCDF and ADIOS peers. No ROMIO run: what counts
# here is the selection read, not bandwidth. SEL_REPS repetitions, as a read of a few
# milliseconds varies more than a write.
SEL_REPS=${SEL_REPS:-5}
SEL_METHODS=collective,subfile,subfile-fpp,pnetcdf,phdf5,adios1,adios2-bp5
# The particles pattern (joined arrays, docs/benchmarks.md) runs with them: its methods are the
# ones that can write per-rank counts, and there is no ROMIO run either.
JOINED_METHODS=raw,raw-shared,subfile,subfile-fpp,collective,phdf5,adios1
SEL_CASES=(
  "selection|selection --methods $SEL_METHODS"
  "selection-all-steps|selection --read-steps all --methods $SEL_METHODS"
  "particles|particles --methods $JOINED_METHODS"
  "particles-even|particles --reader even --methods ${JOINED_METHODS#raw,raw-shared,}"
)
# The metadata pattern (PerfMetaData-like): both presets at 1, 4 and 16 ranks, every subfile
# metadata backend with each reader strategy, on disk; then the 10,000-step flatness check
# (tiny blocks) at 1 and 4 ranks. The report prints the metadata table per backend.
MD_METHODS=subfile-gather,subfile-gather/all,subfile-log,subfile-log/all,subfile-aligned,subfile-aligned/all
MD_STEPS=${MD_STEPS:-10}
MD_CASES=()
for preset in e3sm warpx; do
  for np in 1 4 16; do
    MD_CASES+=("metadata-$preset-np$np|$np|metadata --preset $preset --steps $MD_STEPS --methods $MD_METHODS")
  done
done
for np in 1 4; do
  MD_CASES+=("metadata-flat-np$np|$np|metadata --vars 1 --blocks 1 --block-elements 1 --steps 10000 --methods subfile-gather,subfile-log,subfile-aligned --reps 1")
done
for dir in /tmp /dev/shm; do
  tag=$([[ $dir == /dev/shm ]] && echo shm || echo disk)
  for c in "${CASES[@]}"; do
    label=${c%%|*}; args=${c#*|}
    echo "== $label on $dir"
    # shellcheck disable=SC2086
    "$MPIEXEC" -n "$NP" "$BIN" $args --reps "$REPS" --read --dir "$dir" \
      --json "$OUT/$label.$tag.json" || echo "tapio-bench $label failed (exit $?)"
    # shellcheck disable=SC2086
    OMPI_MCA_io=romio321 "$MPIEXEC" "${FORWARD_IO[@]}" -n "$NP" "$BIN" $args \
      --methods raw,collective,mpiio-romio --reps "$ROMIO_REPS" --read --dir "$dir" \
      --json "$OUT/$label.$tag.romio.json" >/dev/null || echo "romio run of $label failed"
  done
  for c in "${SEL_CASES[@]}"; do
    label=${c%%|*}; args=${c#*|}
    echo "== $label on $dir"
    # shellcheck disable=SC2086
    "$MPIEXEC" -n "$NP" "$BIN" $args --reps "$SEL_REPS" --read --dir "$dir" \
      --json "$OUT/$label.$tag.json" || echo "tapio-bench $label failed (exit $?)"
  done
done
for c in "${MD_CASES[@]}"; do
  label=${c%%|*}; rest=${c#*|}; np=${rest%%|*}; args=${rest#*|}
  echo "== $label ($np ranks) on /tmp"
  reps=$REPS; [[ $args == *--reps* ]] && reps=""
  # shellcheck disable=SC2086
  "$MPIEXEC" -n "$np" "$BIN" $args ${reps:+--reps $reps} --dir /tmp \
    --json "$OUT/$label.disk.json" || echo "tapio-bench $label failed (exit $?)"
done
# auto against a sweep (docs/sim.md, "Choosing"): licom, hpio and matrix at NP ranks under every
# buffer_size x stripe_size candidate and under auto, interleaved, 5 cycles (2-3 minutes).
echo "== auto against the buffer_size x stripe_size sweep"
MPIEXEC="$MPIEXEC" .venv/bin/python scripts/sim_sweep.py "$BUILD" "$OUT" "$NP" docs/sim.md \
  | tee "$OUT/sim_sweep.md" || echo "the auto sweep failed"
echo "bench.sh: all runs took $SECONDS s"
.venv/bin/python bench/bench_report.py "$OUT" docs/benchmarks.md docs/img
echo "wrote docs/benchmarks.md and docs/img/bench_*.png from $OUT"
