#!/usr/bin/env bash
# Runs every fuzz target from its seed corpus (tests/fuzz/corpus/TARGET).
#   tests/fuzz/run.sh FUZZ_BUILD --runs N [TARGET...]   N executions each (make test)
#   tests/fuzz/run.sh FUZZ_BUILD --time S [TARGET...]   S seconds each (make fuzz)
# New inputs go to FUZZ_BUILD/corpus/TARGET (kept between runs, not committed), crashes to
# FUZZ_BUILD/crashes/; each run's executions are added to FUZZ_BUILD/fuzz-totals.tsv. Exits
# non-zero when a target finds anything. A fixed finding's input belongs in the seed corpus.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$1" mode="$2" amount="$3"
shift 3
case "$mode" in
  --runs) limit=(-runs="$amount") ;;
  --time) limit=(-max_total_time="$amount") ;;
  *) echo "usage: $0 FUZZ_BUILD --runs N | --time S" >&2; exit 2 ;;
esac
targets=(netcdf_header subfile_dataset block_list operators selection config segment_list
  e3sm_map)
if (($#)); then targets=("$@"); fi
mkdir -p "$build/crashes"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t"
  log="$build/fuzz-$t.log"
  # The limits of issue 14: no single allocation over 256 MiB and no more than 2 GiB resident
  # (the targets check the total against their input's size themselves).
  if "$build/tests/fuzz/fuzz_$t" "${limit[@]}" -malloc_limit_mb=256 -rss_limit_mb=2048 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" \
      "$build/corpus/$t" "$here/corpus/$t" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED failed=1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${runs:-0}" "$status" >>"$build/fuzz-totals.tsv"
  echo "fuzz $t: ${runs:-0} executions, $status"
  if [[ $status != ok ]]; then tail -n 40 "$log"; fi
done
exit $failed
