#!/usr/bin/env bash
# poisson gives bitwise identical results (checksum, residual history, errors) under every
# execution model, on 1, 2 and 4 ranks with 1 and 2 threads, for every solver, and for
# every block size (the red-black order is global, so blocks do not change the iterate).
# Usage: poisson_checksums.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# run NAME RANKS ARGS...: runs poisson with a report in $tmp/NAME.json.
run() {
  local name="$1" np="$2"
  shift 2
  launch "$np" "$bin/poisson" --quiet \
    --hang-timeout 30 --report "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name: poisson $* on $np rank(s) exited non-zero"; }
}
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
  for np in 1 2 4; do
    run "${label}_bsp_np${np}" "$np" --exec bsp "$@"
    runs+=("${label}_bsp_np${np}")
    for model in forkjoin dataflow; do
      for threads in 1 2; do
        run "${label}_${model}_np${np}_t${threads}" "$np" --exec "$model" --threads "$threads" "$@"
        runs+=("${label}_${model}_np${np}_t${threads}")
      done
    done
  done
  local reference
  reference="$(invariant "$tmp/${label}_bsp_np1.json")"
  for r in "${runs[@]}"; do
    [[ "$(invariant "$tmp/$r.json")" == "$reference" ]] ||
      fail "$r differs from bsp on 1 rank:
  $(invariant "$tmp/$r.json")
  $reference"
  done
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
for r in rbgs2d_forkjoin_np3_t2; do
  [[ "$(invariant "$tmp/$r.json")" == "$(invariant "$tmp/rbgs2d_bsp_np1.json")" ]] ||
    fail "rbgs 2-D: $r differs from bsp on 1 rank"
done
echo "rbgs2d: checksum $(field "$tmp/rbgs2d_bsp_np1.json" checksum) in all"

# mg in 2-D: 4 levels (40 x 24 -> 5 x 3 cells), coarse levels with fewer blocks than the
# finest and than the ranks (transfers between ranks), stopped by --max-iterations.
mg2d=(--tolerance 0 --solver mg --cells 40 24 --modes 5 3 --levels 4 --max-iterations 4)
matrix mg2d "${mg2d[@]}" --block-cells 10 6
# Block size and level layout do not change the bits either.
run mg2d_blocks 2 --exec dataflow --threads 2 "${mg2d[@]}" --block-cells 20 24
[[ "$(invariant "$tmp/mg2d_blocks.json")" == "$(invariant "$tmp/mg2d_bsp_np1.json")" ]] ||
  fail "mg 2-D with blocks of 20 x 24 differs from blocks of 10 x 6"
run mg2d_no_replay 4 --exec dataflow --threads 2 --no-replay "${mg2d[@]}" --block-cells 10 6
[[ "$(invariant "$tmp/mg2d_no_replay.json")" == "$(invariant "$tmp/mg2d_bsp_np1.json")" ]] ||
  fail "mg 2-D with --no-replay differs"
mg3d=(--tolerance 0 --solver mg --dim 3 --cells 16 16 8 --modes 3 2 1 --max-iterations 3)
run mg3d_bsp_np1 1 --exec bsp "${mg3d[@]}" --block-cells 4 4 4
run mg3d_dataflow_np3_t2 3 --exec dataflow --threads 2 "${mg3d[@]}" --block-cells 8 2 8
for r in mg3d_dataflow_np3_t2; do
  [[ "$(invariant "$tmp/$r.json")" == "$(invariant "$tmp/mg3d_bsp_np1.json")" ]] ||
    fail "mg 3-D: $r differs from bsp on 1 rank"
done
echo "mg3d: checksum $(field "$tmp/mg3d_bsp_np1.json" checksum) in all"

# More ranks than blocks: ranks without blocks still take part in every reduction.
run sparse_np1 1 --exec bsp --tolerance 0 --cells 24 8 --block-cells 8 8 --max-iterations 30 --sweeps-per-check 7
run sparse_np4 4 --exec dataflow --tolerance 0 --cells 24 8 --block-cells 8 8 --max-iterations 30 --sweeps-per-check 7
[[ "$(invariant "$tmp/sparse_np4.json")" == "$(invariant "$tmp/sparse_np1.json")" ]] ||
  fail "4 ranks on 3 blocks differ from 1 rank"
echo "poisson_checksums: PASS"
