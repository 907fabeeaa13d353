#!/usr/bin/env bash
# poisson gives bitwise identical results (checksum, residual history, errors) under every
# execution model, on 1, 2 and 4 ranks with 1 and 2 threads, for every solver, and for
# every block size (the red-black order is global, so blocks do not change the iterate).
# Usage: poisson_checksums.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app poisson "$@"; }
# The part of a report that must not depend on how the run was executed.
invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['residual_hex'], r['iterations'], r['l2_error'],
                  r['max_error'], [(h['iteration'], h['residual']) for h in r['history']]]))" "$1"
}

# matrix LABEL ARGS...: bsp on 1, 2, 4 ranks and forkjoin, dataflow on 1, 2, 4 ranks x 1, 2
# threads all give the bits of bsp on 1 rank.
matrix() {
  local label="$1"
  shift
  local runs=()
  run_matrix poisson "$label" "1 2 4" "$@"
  expect_all_same "${label}_bsp_np1" "${runs[@]}"
  echo "$label: ${#runs[@]} runs, checksum $(field "$tmp/${label}_bsp_np1.json" checksum)," \
    "residual $(field "$tmp/${label}_bsp_np1.json" residual) after" \
    "$(field "$tmp/${label}_bsp_np1.json" iterations) iterations in all"
}

# rbgs in 3-D on 24 blocks (skeleton and enclave blocks on every rank count), stopped by
# --max-iterations between two checks.
rbgs3d=(--tolerance 0 --solver rbgs --dim 3 --cells 16 12 8 --modes 3 2 1 --max-iterations 40
  --sweeps-per-check 15)
matrix rbgs3d "${rbgs3d[@]}" --block-cells 4 4 4
# The same run cut into other blocks, and a 2-D run, on a few configurations.
run rbgs3d_blocks 2 --exec dataflow --threads 2 "${rbgs3d[@]}" --block-cells 16 3 2
[[ "$(invariant "$tmp/rbgs3d_blocks.json")" == "$(invariant "$tmp/rbgs3d_bsp_np1.json")" ]] ||
  fail "rbgs 3-D with blocks of 16 x 3 x 2 differs from blocks of 4 x 4 x 4"
# dataflow replays a recorded iteration by default; submitting every one gives the same bits.
run rbgs3d_no_replay 2 --exec dataflow --threads 2 --no-replay "${rbgs3d[@]}" --block-cells 4 4 4
[[ "$(invariant "$tmp/rbgs3d_no_replay.json")" == "$(invariant "$tmp/rbgs3d_bsp_np1.json")" ]] ||
  fail "rbgs 3-D with --no-replay differs"
rbgs2d=(--tolerance 0 --solver rbgs --cells 40 24 --modes 5 3 --max-iterations 70 --sweeps-per-check 25)
run rbgs2d_bsp_np1 1 --exec bsp "${rbgs2d[@]}" --block-cells 8 6
run rbgs2d_forkjoin_np3_t2 3 --exec forkjoin --threads 2 "${rbgs2d[@]}" --block-cells 5 24
expect_all_same rbgs2d_bsp_np1 rbgs2d_forkjoin_np3_t2

# mg in 2-D: 4 levels (40 x 24 -> 5 x 3 cells), coarse levels with fewer blocks than the
# finest and than the ranks (transfers between ranks), stopped by --max-iterations.
mg2d=(--tolerance 0 --solver mg --cells 40 24 --modes 5 3 --levels 4 --max-iterations 4)
matrix mg2d "${mg2d[@]}" --block-cells 10 6
# Block size and level layout do not change the bits either.
run mg2d_blocks 2 --exec dataflow --threads 2 "${mg2d[@]}" --block-cells 20 24
run mg2d_no_replay 4 --exec dataflow --threads 2 --no-replay "${mg2d[@]}" --block-cells 10 6
expect_all_same mg2d_bsp_np1 mg2d_blocks mg2d_no_replay
mg3d=(--tolerance 0 --solver mg --dim 3 --cells 16 16 8 --modes 3 2 1 --max-iterations 3)
run mg3d_bsp_np1 1 --exec bsp "${mg3d[@]}" --block-cells 4 4 4
run mg3d_dataflow_np3_t2 3 --exec dataflow --threads 2 "${mg3d[@]}" --block-cells 8 2 8
expect_all_same mg3d_bsp_np1 mg3d_dataflow_np3_t2

# More ranks than blocks: ranks without blocks still take part in every reduction.
run sparse_np1 1 --exec bsp --tolerance 0 --cells 24 8 --block-cells 8 8 --max-iterations 30 --sweeps-per-check 7
run sparse_np4 4 --exec dataflow --tolerance 0 --cells 24 8 --block-cells 8 8 --max-iterations 30 --sweeps-per-check 7
expect_all_same sparse_np1 sparse_np4
echo "poisson_checksums: PASS"
