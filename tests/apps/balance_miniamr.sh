#!/usr/bin/env bash
# --balance cost in miniamr (the driver's repartition after every refinement step,
# --lb_opt 1): blocks move by the ranks' measured speeds, and the checksums keep their bits
# against --balance count on 1 to 4 ranks under bsp, forkjoin and dataflow.
# Usage: balance_miniamr.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# A sphere moving through a 2 x 1 x 1 mesh of 8^3 blocks, refined every 2 steps.
input=(--nx 8 --ny 8 --nz 8 --stages_per_ts 4 --refine_freq 2 --checksum_freq 4
  --init_x 2 --init_y 1 --init_z 1 --num_refine 2 --num_tsteps 12 --num_vars 4
  --max_blocks 3000 --num_objects 1
  --object 2 0 -0.6 -0.6 -0.6 0.1 0.1 0.1 0.3 0.3 0.3 0 0 0 --lb_opt 1)

run_app miniamr count_bsp_np1 1 --exec bsp "${input[@]}"
run_app miniamr count_dataflow_np3 3 --exec dataflow "${input[@]}" --balance count
runs=(count_dataflow_np3)
run_matrix miniamr cost "1 2 4" "${input[@]}" --balance cost
# --balance-gain 0: blocks move whenever the cut of the measured costs moves.
run_app miniamr cost_dataflow_np3 3 --exec dataflow "${input[@]}" --balance cost --balance-gain 0
runs+=(cost_dataflow_np3)
for r in count_bsp_np1 "${runs[@]}"; do
  [[ "$(field "$tmp/$r.json" checksum)" == "$(field "$tmp/count_bsp_np1.json" checksum)" ]] ||
    fail "$r: checksum differs from count_bsp_np1"
done
[[ "$(field "$tmp/cost_dataflow_np3.json" balance)" == cost ]] || fail "report: balance"
echo "balance_miniamr: PASS"
