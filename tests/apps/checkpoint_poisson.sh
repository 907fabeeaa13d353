#!/usr/bin/env bash
# poisson checkpoint and restart, for --solver rbgs and mg: a solve stopped by
# --max-iterations and restarted (on fewer, as many and more ranks, other thread counts,
# every --exec model, from latest or a named step) ends with the same checksum, residual
# bits, iteration count and residual history as the straight solve; a problem option that
# disagrees with the checkpoint stops the run naming it.
# Usage: checkpoint_poisson.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# run NAME RANKS ARGS...: runs poisson with a report in $tmp/NAME.json. A solve stopped by
# --max-iterations before its tolerance exits 3 (docs/apps/poisson.md); `stopped` expects it.
run() {
  local name="$1" np="$2" want="${want_exit:-0}" code=0
  shift 2
  timeout -k 10 120 mpirun -np "$np" --oversubscribe --bind-to none "$bin/poisson" --quiet \
    --hang-timeout 30 --report "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>&1 || code=$?
  [[ $code == "$want" ]] ||
    { cat "$tmp/$name.out"; fail "$name: poisson $* on $np rank(s) exited $code, not $want"; }
}
stopped() { want_exit=3 run "$@"; }
# What a restarted run must reproduce (the history's times may differ, nothing else).
invariant() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r[k] for k in ('checksum','residual_hex','iterations','converged','l2_error','max_error')] + [[h['iteration'], h['residual']] for h in r['history']]))" "$1"
}

# rbgs: checks every 20 iterations, converged after 120; a checkpoint at the first check
# at or after every 30 iterations (40, 60).
rbgs=(--cells 64 64 --block-cells 16 16 --sweeps-per-check 20)
run rbgs_straight 2 "${rbgs[@]}"
ck="$tmp/ck_rbgs"
stopped rbgs_first 2 "${rbgs[@]}" --max-iterations 60 --checkpoint-every 30 --checkpoint-dir "$ck"
[[ "$(ls "$ck" | tr '\n' ' ')" == "step-40 step-60 " ]] || fail "rbgs: expected step-40 step-60 in $(ls "$ck")"
run rbgs_np1_bsp 1 --restart "$ck/step-40" --exec bsp
run rbgs_np3_df_t2 3 --restart latest --checkpoint-dir "$ck" --threads 2
run rbgs_np4_fj_t2 4 --restart latest --checkpoint-dir "$ck" --exec forkjoin --threads 2 \
  "${rbgs[@]}"
for r in rbgs_np1_bsp rbgs_np3_df_t2 rbgs_np4_fj_t2; do expect_same rbgs_straight "$r"; done

# mg: 3-D V-cycles, stopped after 3; a checkpoint every 2 cycles.
mg=(--solver mg --dim 3 --cells 32 32 32 --block-cells 8 8 8)
run mg_straight 2 "${mg[@]}"
ck="$tmp/ck_mg"
stopped mg_first 2 "${mg[@]}" --max-iterations 3 --checkpoint-every 2 --checkpoint-dir "$ck"
[[ -d "$ck/step-2" ]] || fail "mg: expected step-2 in $(ls "$ck")"
run mg_np3_df_t2 3 --restart latest --checkpoint-dir "$ck" --threads 2
run mg_np1_noreplay 1 --restart "$ck/step-2" --no-replay --threads 2
run mg_np4_bsp 4 --restart "$ck/step-2" --exec bsp
for r in mg_np3_df_t2 mg_np1_noreplay mg_np4_bsp; do expect_same mg_straight "$r"; done

# A problem option that disagrees with the checkpoint: one line naming it, exit != 0.
set +e
mpirun -np 2 --oversubscribe "$bin/poisson" --restart latest --checkpoint-dir "$ck" \
  --cells 16 16 16 >"$tmp/bad.out" 2>"$tmp/bad.err"
code=$?
set -e
[[ $code -ne 0 ]] || fail "a disagreeing --cells was accepted"
grep -q "^poisson: error: --cells: \[16,16,16\] given, but the checkpoint .*step-2/checkpoint.h5 was written with \[32,32,32\]" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; fail "no error line naming --cells"; }
[[ "$(grep -c "error:" "$tmp/bad.err")" == 1 ]] || { cat "$tmp/bad.err"; fail "more than one error line"; }
echo "checkpoint_poisson: restarted rbgs and mg solves match the straight solves bitwise"
