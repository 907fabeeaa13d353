#!/usr/bin/env bash
# Bad checkpoints: a missing directory, a truncated file, a flipped byte in a dataset, a
# checkpoint of another app or of another problem, a .tmp leftover. Each restart stops with
# exit != 0 and one error line naming the file (or the option) and what is wrong, and
# leaves the checkpoint directory exactly as it was (nothing written, pruned or deleted).
# Usage: checkpoint_errors.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
snapshot() { (cd "$tmp" && find ck -type f -exec md5sum {} + | sort; find ck | sort); }

jacobi=(--blocks 4 3 2 --block-cells 8 8 8 --check-every 5)
amr=(--nx 4 --ny 4 --nz 4 --num_vars 3 --stages_per_ts 2 --num_refine 1 --refine_freq 2
  --num_objects 1 --object 2 0 -0.6 -0.6 -0.6 0.25 0.25 0.25 0.9 0.9 0.9 0 0 0 --report_perf 0)
ck="$tmp/ck"
mpirun -np 2 --oversubscribe "$bin/jacobi7" --quiet "${jacobi[@]}" --iters 10 --checkpoint-every 5 \
  --checkpoint-dir "$ck/j" >/dev/null
mpirun -np 2 --oversubscribe "$bin/miniamr" --quiet "${amr[@]}" --num_tsteps 4 --checkpoint-every 2 \
  --checkpoint-dir "$ck/m" >/dev/null
# Damaged copies: truncated to half, and one byte flipped in the middle of the file (inside
# the field's values, which are most of it), and a .tmp leftover of an interrupted write.
cp -r "$ck/j/step-10" "$ck/j/step-20"
truncate -s "$(($(stat -c %s "$ck/j/step-20/checkpoint.h5") / 2))" "$ck/j/step-20/checkpoint.h5"
cp -r "$ck/j/step-10" "$ck/j/step-30"
/usr/bin/python3 - "$ck/j/step-30/checkpoint.h5" <<'PY'
import os, sys
path = sys.argv[1]
with open(path, "r+b") as f:
    f.seek(os.path.getsize(path) // 2)
    b = f.read(1)
    f.seek(-1, 1)
    f.write(bytes([b[0] ^ 0x40]))
PY
mkdir -p "$ck/j/step-40.tmp" "$ck/t/step-5.tmp"
before="$(snapshot)"

# expect_checkpoint_error APP PATTERN ARGS...: the run fails with exactly one error line matching.
expect_checkpoint_error() {
  local app="$1" pattern="$2"
  shift 2
  set +e
  timeout -k 10 60 mpirun -np 3 --oversubscribe "$bin/$app" --quiet --checkpoint-every 1 "$@" \
    >"$tmp/out" 2>"$tmp/err"
  local code=$?
  set -e
  [[ $code -ne 0 && $code -ne 124 ]] || fail "$app $*: exit $code, expected a clean error"
  grep -Eq "^$app: error: $pattern" "$tmp/err" || { cat "$tmp/err"; fail "$app $*: no '$pattern'"; }
  [[ "$(grep -c "error:" "$tmp/err")" == 1 ]] || { cat "$tmp/err"; fail "$app $*: not one error line"; }
  [[ "$(snapshot)" == "$before" ]] || fail "$app $*: the checkpoint directory changed"
}

expect_checkpoint_error jacobi7 "--restart: $ck/j/step-99: no such checkpoint directory" \
  --iters 20 --restart "$ck/j/step-99"
expect_checkpoint_error jacobi7 "--restart: latest: checkpoint directory $tmp/nowhere does not exist" \
  --iters 20 --restart latest --checkpoint-dir "$tmp/nowhere"
expect_checkpoint_error jacobi7 "--restart: $ck/j/step-20/checkpoint.h5: HDF5 cannot open it \(truncated" \
  --iters 40 --restart "$ck/j/step-20" --checkpoint-dir "$ck/j"
expect_checkpoint_error jacobi7 "--restart: $ck/j/step-30/checkpoint.h5: dataset /fields/u: checksum mismatch" \
  --iters 40 --restart "$ck/j/step-30" --checkpoint-dir "$ck/j"
expect_checkpoint_error jacobi7 "--restart: $ck/j/step-40.tmp: an unfinished checkpoint" \
  --iters 50 --restart "$ck/j/step-40.tmp" --checkpoint-dir "$ck/j"
expect_checkpoint_error jacobi7 "--restart: latest: no complete checkpoint \(step-N/\) in $ck/t \(only the unfinished $ck/t/step-5.tmp" \
  --iters 50 --restart latest --checkpoint-dir "$ck/t"
expect_checkpoint_error jacobi7 "--restart: $ck/m/step-4/checkpoint.h5: a checkpoint of app 'miniamr', not of 'jacobi7'" \
  --iters 20 --restart "$ck/m/step-4"
expect_checkpoint_error jacobi7 "--block-cells: \[8,8,4\] given, but the checkpoint $ck/j/step-10/checkpoint.h5 was written with \[8,8,8\]" \
  --iters 20 --restart "$ck/j/step-10" --block-cells 8 8 4 --checkpoint-dir "$ck/j"
expect_checkpoint_error miniamr "--restart: $ck/j/step-10/checkpoint.h5: a checkpoint of app 'jacobi7', not of 'miniamr'" \
  --num_tsteps 8 --restart "$ck/j/step-10"
expect_checkpoint_error miniamr "--stencil: 27 given, but the checkpoint $ck/m/step-4/checkpoint.h5 was written with 7" \
  --num_tsteps 8 --restart latest --checkpoint-dir "$ck/m" --stencil 27
# The intact checkpoints still restart.
mpirun -np 3 --oversubscribe "$bin/jacobi7" --quiet --iters 12 --restart "$ck/j/step-10" >/dev/null
echo "checkpoint_errors: every bad checkpoint stopped the run with one clear error"
