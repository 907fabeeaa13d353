#!/usr/bin/env bash
# euler's Athena++ blast criterion (--refine-criterion pressure) with Athena++'s
# derefinement delay (--derefine-count): on a periodic 2-D blast over two levels, a longer
# delay merges fewer families (none at 1000 checks) and the counts carry across mesh
# changes and ranks, so checksums, conserved totals and time are bitwise identical for
# bsp / forkjoin / dataflow on 1, 2 and 4 ranks with 1 and 2 threads; the run conserves
# mass, momentum and energy; bad values and checkpoints with the criterion are refused.
# The indicator's values are unit-tested (tests/unit/euler/pressure_indicator_test.cpp).
# Usage: euler_criterion.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app euler "$@"; }
invariant() { fields "$1" checksum conserved_hex time cycles blocks_by_level; }

blast=(--problem blast --dim 2 --cells 16 16 --block-cells 4 4 --max-level 2 --adapt-every 1
  --refine-criterion pressure --refine-above 0.5 --derefine-below 0.125 --blast-radius 0.2
  --max-cycles 40)

merged() { field "$tmp/$1.json" families_merged; }
run delay1 1 "${blast[@]}" --derefine-count 1
run delay3 1 "${blast[@]}" --derefine-count 3 --history "$tmp/delay3.csv"
run delay1000 1 "${blast[@]}" --derefine-count 1000
m1=$(merged delay1) m3=$(merged delay3) m1000=$(merged delay1000)
[[ $m1 -gt $m3 && $m3 -gt 0 && $m1000 -eq 0 ]] ||
  fail "families merged with --derefine-count 1, 3, 1000: $m1, $m3, $m1000 (want decreasing, >0, 0)"
echo "ok: families merged with --derefine-count 1, 3, 1000: $m1, $m3, $m1000"
euler_conserved "$tmp/delay3.json" 5 1 "$tmp/delay3.csv"
echo "ok: the pressure criterion with a delay conserves mass, momentum and energy"

runs=()
matrix() {
  local np="$1" model="$2" threads="$3"
  run "${model}_np${np}_t${threads}" "$np" --exec "$model" --threads "$threads" "${blast[@]}" \
    --derefine-count 3
  runs+=("${model}_np${np}_t${threads}")
}
matrix 2 bsp 1
matrix 4 bsp 1
matrix 2 forkjoin 2
matrix 4 dataflow 1
matrix 2 dataflow 2
expect_all_same delay3 "${runs[@]}"

plain=(--problem blast --dim 2 --cells 16 16 --block-cells 4 4 --max-level 2 --max-cycles 10)
run checkpointed 1 "${plain[@]}" --checkpoint-every 5 --checkpoint-dir "$tmp/c"
set +e  # refused runs exit non-zero
expect_error 1 euler --refine-criterion "${plain[@]}" --refine-criterion athena
expect_error 1 euler --derefine-count "${plain[@]}" --derefine-count 0
expect_error 1 euler --refine-criterion "${plain[@]}" --refine-criterion pressure \
  --checkpoint-every 5 --checkpoint-dir "$tmp/d"
expect_error 1 euler --derefine-count --derefine-count 2 --restart latest --checkpoint-dir "$tmp/c"
