#!/usr/bin/env bash
# jacobi7 checkpoint and restart: a run stopped at iteration k and restarted (on fewer,
# as many and more ranks, other thread counts, another --exec, from latest or a named
# step, restarting twice) ends with the same checksum bits and the same residual history
# as the straight run; problem options given again must agree with the checkpoint.
# Usage: checkpoint_jacobi7.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# run NAME RANKS ARGS...: runs jacobi7 with a report in $tmp/NAME.json.
run() { run_app jacobi7 "$@"; }
# What a restarted run must reproduce: checksum bits, residual/error history, final norms.
invariant() { fields "$1" checksum history residual error iters cells; }

problem=(--blocks 4 3 2 --block-cells 6 5 4 --check-every 7)
run straight 2 "${problem[@]}" --iters 30
ck="$tmp/ck"
run first 2 "${problem[@]}" --iters 12 --checkpoint-every 6 --checkpoint-dir "$ck"
[[ -d "$ck/step-6" && -d "$ck/step-12" ]] || fail "expected step-6 and step-12 in $(ls "$ck")"

# The problem options come from the checkpoint; only run-time options are given.
run r_np1_bsp 1 --iters 30 --restart latest --checkpoint-dir "$ck" --exec bsp
run r_np2_df_t2 2 --iters 30 --restart latest --checkpoint-dir "$ck" --threads 2
run r_np4_fj_t2 4 --iters 30 --restart latest --checkpoint-dir "$ck" --exec forkjoin --threads 2
run r_np3_step6 3 --iters 30 --restart "$ck/step-6" --send-faces --separate-buffers
run r_np2_given 2 "${problem[@]}" --iters 30 --restart "$ck/step-12"
for r in r_np1_bsp r_np2_df_t2 r_np4_fj_t2 r_np3_step6 r_np2_given; do expect_same straight "$r"; done

# Twice interrupted: 12 -> 21 (writing checkpoints of its own, under forkjoin) -> 30.
run chain1 4 --iters 21 --restart latest --checkpoint-dir "$ck" --checkpoint-every 3 --keep 1 \
  --exec forkjoin --threads 2
[[ "$(ls "$ck")" == "step-21" ]] || fail "--keep 1 left $(ls "$ck")"
run chain2 1 --iters 30 --restart latest --checkpoint-dir "$ck"
expect_same straight chain2

# A problem option that disagrees with the checkpoint: one line naming it, exit != 0.
set +e
mpirun -np 2 --oversubscribe "$bin/jacobi7" --iters 30 --restart latest --checkpoint-dir "$ck" \
  --blocks 4 3 3 >"$tmp/bad.out" 2>"$tmp/bad.err"
code=$?
set -e
[[ $code -ne 0 ]] || fail "a disagreeing --blocks was accepted"
grep -q "^jacobi7: error: --blocks: \[4,3,3\] given, but the checkpoint .*step-21/checkpoint.h5 was written with \[4,3,2\]" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; fail "no error line naming --blocks"; }
[[ "$(grep -c "error:" "$tmp/bad.err")" == 1 ]] || { cat "$tmp/bad.err"; fail "more than one error line"; }
echo "checkpoint_jacobi7: restarted runs match the straight run bitwise"
