#!/usr/bin/env bash
# --balance cost moves jacobi7's blocks between ranks (measured cost per block, weighted
# split of the curve, block migration as tasks) without changing a bit: checksums and
# residual histories equal those of --balance count on 1 to 4 ranks, under bsp, forkjoin and
# dataflow with 1 and 2 threads, also with temporal blocking, pack tasks and checkpoints.
# Usage: balance_jacobi7.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app jacobi7 "$@"; }
invariant() { fields "$1" checksum history; }
moved() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['balance']['blocks_moved'])" "$1"; }

# Repartitions after 3 iterations and every 4 after: four of them in 20 iterations, with
# checks in flight across them; --balance-gain 0 moves blocks whenever the cut moves.
input=(--blocks 4 4 2 --block-cells 6 5 4 --iters 20 --check-every 4)
balance=(--balance cost --balance-after 3 --balance-every 4 --balance-gain 0)

run count_bsp_np1 1 --exec bsp "${input[@]}"
runs=()
run_matrix jacobi7 cost "1 2 3 4" "${input[@]}" "${balance[@]}"
run count_dataflow_np3 3 --exec dataflow --threads 2 --balance count "${input[@]}"
run tile_dataflow_np3 3 --exec dataflow --threads 2 --time-tile 2 "${input[@]}" "${balance[@]}"
run packs_forkjoin_np4 4 --exec forkjoin --fused-packing none --send-faces "${input[@]}" \
  "${balance[@]}"
run wavefront_dataflow_np2 2 --exec dataflow --wavefront-depth 2 "${input[@]}" "${balance[@]}"
runs+=(count_dataflow_np3 tile_dataflow_np3 packs_forkjoin_np4 wavefront_dataflow_np2)
expect_all_same count_bsp_np1 "${runs[@]}"

# Count balance never repartitions; cost balance moved blocks on more than one rank (the
# measured costs differ from run to run, so the sum over the runs is checked).
[[ "$(moved "$tmp/count_dataflow_np3.json")" == 0 ]] || fail "--balance count moved blocks"
total=0
for r in "${runs[@]}"; do
  [[ $r == *np1* || $r == count* ]] && continue
  total=$((total + $(moved "$tmp/$r.json")))
done
((total > 0)) || fail "--balance cost moved no block in any multi-rank run"
echo "ok: $total blocks moved over the multi-rank cost-balanced runs"

# A restart from a checkpoint written after blocks moved continues with the same bits.
run ckpt_np3 3 --exec dataflow "${input[@]}" "${balance[@]}" --checkpoint-every 10 \
  --checkpoint-dir "$tmp/ckpt"
run restart_np2 2 --exec bsp "${input[@]}" --balance cost --restart "$tmp/ckpt/step-10"
expect_same count_bsp_np1 ckpt_np3
expect_same count_bsp_np1 restart_np2
echo "balance_jacobi7: PASS"
