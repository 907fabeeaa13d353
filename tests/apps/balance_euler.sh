#!/usr/bin/env bash
# --balance cost on the adaptive-mesh driver (euler): the repartition after every adaptation
# gives each rank a share matching its measured speed (p4est_partition_given), and the
# results keep their bits: checksum, conserved totals, block counts equal --balance count
# on 1 to 4 ranks under bsp, forkjoin and dataflow with 1 and 2 threads.
# Usage: balance_euler.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

invariant() { fields "$1" checksum conserved_hex blocks adaptations; }

# A 3-D blast refined and coarsened every 2 cycles.
input=(--problem blast --dim 3 --cells 16 16 16 --block-cells 4 4 4 --max-level 1
  --max-cycles 8 --adapt-every 2)

run_app euler count_bsp_np1 1 --exec bsp "${input[@]}"
runs=()
run_matrix euler cost "1 2 4" "${input[@]}" --balance cost
# --balance-gain 0: blocks move whenever the cut of the measured costs moves.
run_app euler cost_dataflow_np3_t2 3 --exec dataflow --threads 2 "${input[@]}" --balance cost \
  --balance-gain 0
runs+=(cost_dataflow_np3_t2)
expect_all_same count_bsp_np1 "${runs[@]}"
[[ "$(field "$tmp/cost_dataflow_np3_t2.json" balance)" == cost ]] || fail "report: balance"
echo "balance_euler: PASS"
