#!/usr/bin/env bash
# euler's two forms of a block's stage, --stage-tasks split (primitive, one flux task per
# axis, update) and fused (one task), give the same bits (checksum, conserved totals, time,
# cycles) on an adaptive 3-D blast (flux correction at level jumps; 2 ranks, dataflow, 2
# threads) and an adaptive 2-D Kelvin-Helmholtz run (forkjoin, 2 threads); a split run has
# one primitive task and dim flux tasks per update task, a fused run none; the default
# (auto) fuses blocks under 4096 cells and splits 16^3 blocks; and a cell with
# non-positive pressure stops both forms with the same message, exit 1.
# Usage: euler_stage_tasks.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app euler "$@"; }
invariant() { fields "$1" checksum conserved_hex time cycles blocks_by_level; }
# "split DIM" when the report's task counts are those of split stages, else "fused".
stage_form() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tasks"]
updates = t.get("euler_predict", 0) + t.get("euler_correct", 0)
flux = [t.get("euler_flux_" + a, 0) for a in "xyz"]
if t.get("euler_primitives", 0) == updates > 0 and flux[:r["dim"]] == [updates] * r["dim"] \
        and flux[r["dim"]:] == [0] * (3 - r["dim"]):
    print("split", r["dim"])
elif t.get("euler_primitives", 0) == 0 and sum(flux) == 0 and updates > 0:
    print("fused")
else:
    print("unexpected task counts", t)
PY
}

inputs=("2 --exec dataflow --threads 2 --problem blast --dim 3 --cells 16 16 16 --block-cells 8 8 8 --max-level 1 --refine-above 0.5 --derefine-below 0.125 --adapt-every 3 --max-cycles 12"
  "1 --exec forkjoin --threads 2 --problem kh --dim 2 --cells 32 64 --block-cells 8 8 --max-level 2 --refine-above 0.1 --derefine-below 0.05 --max-cycles 30")
for i in "${!inputs[@]}"; do
  read -r np dim_args <<<"${inputs[$i]}"
  read -r -a input <<<"$dim_args"
  run "in${i}_split" "$np" --stage-tasks split "${input[@]}"
  run "in${i}_fused" "$np" "${input[@]}"
  [[ "$(stage_form "$tmp/in${i}_split.json")" == split* ]] ||
    fail "in$i: --stage-tasks split: $(stage_form "$tmp/in${i}_split.json")"
  [[ "$(stage_form "$tmp/in${i}_fused.json")" == fused ]] ||
    fail "in$i: default (auto) on small blocks: $(stage_form "$tmp/in${i}_fused.json")"
  [[ "$(field "$tmp/in${i}_split.json" adaptations)" -gt 0 ]] || fail "in$i: no adaptation"
  split="$(invariant "$tmp/in${i}_split.json")"
  fused="$(invariant "$tmp/in${i}_fused.json")"
  [[ "$split" == "$fused" ]] || fail "in$i: split $split differs from fused $fused"
  echo "ok: ${inputs[$i]}: split and fused agree: $split"
done

run big_blocks 1 --problem blast --dim 3 --cells 32 16 16 --block-cells 16 16 16 --max-cycles 2
[[ "$(stage_form "$tmp/big_blocks.json")" == "split 3" ]] ||
  fail "default (auto) on 16^3 blocks: $(stage_form "$tmp/big_blocks.json")"
echo "ok: the default splits the stages of 16^3 blocks"

# A Courant number near 1 on a strong blast makes a pressure negative at cycle 29.
bad=(--problem blast --dim 2 --cells 32 32 --block-cells 8 8 --blast-pressure-ratio 1e4 --cfl 0.99
  --max-cycles 40)
for form in split fused; do
  set +e
  launch 1 "$bin/euler" --quiet --stage-tasks "$form" "${bad[@]}" >"$tmp/bad_$form.out" 2>&1
  rc=$?
  set -e
  [[ $rc -eq 1 ]] || { cat "$tmp/bad_$form.out"; fail "bad cell, $form: exit $rc, not 1"; }
  grep -q "non-positive density or pressure at cycle" "$tmp/bad_$form.out" ||
    { cat "$tmp/bad_$form.out"; fail "bad cell, $form: no message naming the cell"; }
done
diff "$tmp/bad_split.out" "$tmp/bad_fused.out" || fail "bad cell: split and fused messages differ"
echo "ok: a bad cell stops both forms with the same message"
# Submitted cycle by cycle, dataflow runs the cycle after the faulty one before the step
# reduction names the fault: that cycle is cancelled and the message is the same.
set +e
launch 1 "$bin/euler" --quiet --exec dataflow --no-replay "${bad[@]}" >"$tmp/bad_ahead.out" 2>&1
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$tmp/bad_ahead.out"; fail "bad cell, submitted ahead: exit $rc, not 1"; }
diff "$tmp/bad_split.out" "$tmp/bad_ahead.out" || fail "bad cell: the cancelled cycle changed the message"
echo "ok: a bad cell stops a cycle submitted ahead with the same message"
echo "euler_stage_tasks: PASS"
