#!/usr/bin/env bash
# jacobi7 --time-tile D (D iterations per block task from D-deep halos, PlanePipeline)
# gives the checksum and residual history bits of plain sweeps (D = 1, bsp, 1 rank) at
# D = 2 and 3, under bsp, forkjoin and dataflow, on 1 and 2 ranks, 1 and 2 threads, with
# iterations not a multiple of D and after a restart from a step that is not a multiple of D; and
# refuses, on every rank, checks or checkpoints between tiles and tiles deeper than a block.
# Usage: jacobi7_time_tile.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app jacobi7 "$@"; }
invariant() { fields "$1" checksum history; }

# Odd block edges (grown rows start inside a cache line), 20 iterations (not a multiple of
# 3), checks every 6 (a multiple of 2 and 3); 2 ranks split the blocks along the Morton curve.
problem=(--blocks 3 2 2 --block-cells 9 6 5 --check-every 6)
input=("${problem[@]}" --iters 20)

run ref 1 --exec bsp "${input[@]}"
runs=()
for d in 2 3; do
  run "bsp_d${d}" 1 --exec bsp --time-tile "$d" "${input[@]}"
  run "fj_t2_d${d}" 1 --exec forkjoin --threads 2 --time-tile "$d" "${input[@]}"
  run "df_t1_d${d}" 1 --exec dataflow --time-tile "$d" "${input[@]}"
  run "df_np2_t2_d${d}" 2 --exec dataflow --threads 2 --time-tile "$d" "${input[@]}"
  runs+=("bsp_d${d}" "fj_t2_d${d}" "df_t1_d${d}" "df_np2_t2_d${d}")
done
run bsp_np2_d2_sendfaces 2 --exec bsp --time-tile 2 --send-faces "${input[@]}"
runs+=(bsp_np2_d2_sendfaces)
# A checkpoint at step 3 (a tile of 3), continued with tiles of 2: the first is 1 long.
ck="$tmp/ck"
run ck_d3 1 --exec dataflow --time-tile 3 "${problem[@]}" --iters 3 --checkpoint-every 3 \
  --checkpoint-dir "$ck"
run restart_d2 2 --exec dataflow --threads 2 --time-tile 2 --iters 20 --restart latest \
  --checkpoint-dir "$ck"
runs+=(restart_d2)

reference="$(invariant "$tmp/ref.json")"
for r in "${runs[@]}"; do
  got="$(invariant "$tmp/$r.json")"
  [[ "$got" == "$reference" ]] || fail "$r differs from plain sweeps (bsp, 1 rank):
  $got
  $reference"
  [[ "$(field "$tmp/$r.json" time_tile)" != 1 ]] || fail "$r: report says time_tile 1"
done
echo "same checksum and residual history bits in ${#runs[@]} time-tiled runs"

# Bad combinations: exit non-zero with one line naming the option, no report, no hang.
set +e
mesh=(--blocks 3 2 2 --block-cells 9 6 5 --iters 4)
expect_error 2 jacobi7 --check-every --time-tile 4 --check-every 6 "${mesh[@]}"
expect_error 1 jacobi7 --time-tile --time-tile 6 --check-every 0 "${mesh[@]}"
expect_error 1 jacobi7 --checkpoint-every --time-tile 2 --check-every 0 --checkpoint-every 3 \
  --checkpoint-dir "$tmp/ck2" "${mesh[@]}"
expect_error 1 jacobi7 --wavefront-depth --time-tile 2 --check-every 2 --wavefront-depth 2 "${mesh[@]}"
expect_error 1 jacobi7 --time-tile --time-tile 0
echo "jacobi7_time_tile: PASS"
