#!/usr/bin/env bash
# euler gives bitwise identical checksums, conserved totals and time under every execution
# model on 1, 2 and 4 ranks with 1 and 2 threads: all combinations on a 3-D periodic blast;
# bsp on 1, 2, 4 ranks and the threaded models on 4 ranks on a 2-D Sedov blast between
# reflecting walls (so every boundary kind and both dimensions), small grids. The
# dataflow runs replay the recorded cycle, one run submits every cycle (--no-replay), and
# the halo message options (--send-faces, --max-comm-tasks, --separate-buffers) agree too.
# The small blocks run their stages fused (--stage-tasks auto), except the 2-thread runs,
# --no-replay and --send-faces, which split them (primitive, per-axis flux, update tasks).
# Usage: euler_checksums.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app euler "$@"; }
invariant() { fields "$1" checksum conserved_hex time cycles; }
# The 2-thread runs split each block's stage into tasks; the others run it fused.
matrix_options() { [[ $3 -eq 1 ]] || echo --stage-tasks split; }

inputs=("--problem blast --dim 3 --cells 16 16 8 --block-cells 8 4 4 --max-cycles 6"
  "--problem sedov --dim 2 --cells 32 32 --block-cells 8 8 --boundary reflecting --max-cycles 12 --riemann hlle")
for i in "${!inputs[@]}"; do
  read -r -a input <<<"${inputs[$i]}"
  runs=()
  if ((i == 0)); then
    run_matrix euler "in$i" "1 2 4" "${input[@]}"
  else
    # A cross-section of the matrix on the second input (test time).
    run "in${i}_bsp_np1" 1 --exec bsp "${input[@]}"
    run "in${i}_bsp_np2" 2 --exec bsp "${input[@]}"
    runs+=("in${i}_bsp_np2")
    run_matrix euler "in$i" 4 "${input[@]}"
  fi
  run "in${i}_priorities_none" 2 --exec dataflow --threads 2 --priorities none "${input[@]}"
  run "in${i}_no_replay" 4 --exec dataflow --threads 2 --no-replay --stage-tasks split "${input[@]}"
  run "in${i}_send_faces" 4 --exec dataflow --threads 2 --send-faces --separate-buffers \
    --stage-tasks split "${input[@]}"
  run "in${i}_max_comm_tasks" 2 --exec bsp --max-comm-tasks 2 "${input[@]}"
  runs+=("in${i}_priorities_none" "in${i}_no_replay" "in${i}_send_faces" "in${i}_max_comm_tasks")
  expect_all_same "in${i}_bsp_np1" "${runs[@]}"
done
echo "euler_checksums: PASS"
