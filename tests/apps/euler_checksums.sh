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

inputs=("--problem blast --dim 3 --cells 16 16 8 --block-cells 8 4 4 --max-cycles 6"
  "--problem sedov --dim 2 --cells 32 32 --block-cells 8 8 --boundary reflecting --max-cycles 12 --riemann hlle")
for i in "${!inputs[@]}"; do
  read -r -a input <<<"${inputs[$i]}"
  runs=()
  for np in 1 2 4; do
    run "in${i}_bsp_np${np}" "$np" --exec bsp "${input[@]}"
    runs+=("in${i}_bsp_np${np}")
    # The full matrix on the first input; a cross-section of it on the second (test time).
    [[ $i -eq 0 || $np -eq 4 ]] || continue
    for model in forkjoin dataflow; do
      for threads in 1 2; do
        stage=()
        [[ $threads -eq 1 ]] || stage=(--stage-tasks split)
        run "in${i}_${model}_np${np}_t${threads}" "$np" --exec "$model" --threads "$threads" \
          "${stage[@]}" "${input[@]}"
        runs+=("in${i}_${model}_np${np}_t${threads}")
      done
    done
  done
  run "in${i}_priorities_none" 2 --exec dataflow --threads 2 --priorities none "${input[@]}"
  run "in${i}_no_replay" 4 --exec dataflow --threads 2 --no-replay --stage-tasks split "${input[@]}"
  run "in${i}_send_faces" 4 --exec dataflow --threads 2 --send-faces --separate-buffers \
    --stage-tasks split "${input[@]}"
  run "in${i}_max_comm_tasks" 2 --exec bsp --max-comm-tasks 2 "${input[@]}"
  runs+=("in${i}_priorities_none" "in${i}_no_replay" "in${i}_send_faces" "in${i}_max_comm_tasks")
  reference="$(invariant "$tmp/in${i}_bsp_np1.json")"
  for r in "${runs[@]}"; do
    got="$(invariant "$tmp/$r.json")"
    [[ "$got" == "$reference" ]] || fail "$r: $got differs from bsp on 1 rank: $reference"
  done
  echo "ok: ${inputs[$i]}: ${#runs[@]} runs agree: $reference"
done
echo "euler_checksums: PASS"
