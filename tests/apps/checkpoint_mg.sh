#!/usr/bin/env bash
# mg checkpoint and restart: class S restarted mid-iterations (on fewer, as many and more
# ranks, other thread counts, every --exec model, with and without the replayed iteration
# graph, restarting twice) ends with the same rnm2 bits as the straight run and verifies;
# a problem option that disagrees with the checkpoint stops the run naming it.
# Usage: checkpoint_mg.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# run NAME RANKS ARGS...: runs mg with a report in $tmp/NAME.json.
run() { run_app mg "$@"; }
# What a restarted run must reproduce: rnm2 bits, the first norm, verification, class.
invariant() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r[k] for k in ('rnm2_hex','initial_rnm2','verified','class','nit')]))" "$1"
}

run straight 2 --class S --block-cells 8
ck="$tmp/ck"
# The checkpointed run itself (class S: 4 iterations) must not change the result.
run first 2 --class S --block-cells 8 --checkpoint-every 1 --keep 4 --checkpoint-dir "$ck"
[[ "$(ls "$ck" | tr '\n' ' ')" == "step-1 step-2 step-3 step-4 " ]] || fail "expected step-1..4 in $(ls "$ck")"
expect_same straight first

run r_np1_bsp 1 --restart "$ck/step-2" --exec bsp
run r_np4_fj_t2 4 --restart "$ck/step-2" --exec forkjoin --threads 2
run r_np3_df_t2 3 --restart "$ck/step-3" --threads 2
run r_np2_noreplay 2 --restart "$ck/step-1" --no-replay --threads 2
run r_latest 1 --restart latest --checkpoint-dir "$ck" --class S --nx 32
for r in r_np1_bsp r_np4_fj_t2 r_np3_df_t2 r_np2_noreplay r_latest; do expect_same straight "$r"; done

# Twice interrupted: from step-1, writing checkpoints of its own, then from its step-3.
ck2="$tmp/ck2"
run chain1 4 --restart "$ck/step-1" --checkpoint-every 2 --checkpoint-dir "$ck2" --exec forkjoin
[[ -d "$ck2/step-2" && -d "$ck2/step-4" ]] || fail "the restarted run wrote $(ls "$ck2")"
run chain2 3 --restart "$ck2/step-2" --threads 2
expect_same straight chain2

# A problem option that disagrees with the checkpoint: one line naming it, exit != 0.
set +e
mpirun -np 2 --oversubscribe "$bin/mg" --restart latest --checkpoint-dir "$ck" --nx 64 \
  >"$tmp/bad.out" 2>"$tmp/bad.err"
code=$?
set -e
[[ $code -ne 0 ]] || fail "a disagreeing --nx was accepted"
grep -q "^mg: error: --nx: 64 given, but the checkpoint .*step-4/checkpoint.h5 was written with 32" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; fail "no error line naming --nx"; }
[[ "$(grep -c "error:" "$tmp/bad.err")" == 1 ]] || { cat "$tmp/bad.err"; fail "more than one error line"; }
echo "checkpoint_mg: restarted runs match the straight run's rnm2 $(/usr/bin/python3 -c "import json; print(json.load(open('$tmp/straight.json'))['rnm2_hex'])") bitwise"
