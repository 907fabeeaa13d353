#!/usr/bin/env bash
# miniamr checkpoint and restart: the adaptive mesh is rebuilt from the stored block list;
# a run stopped at timestep k and restarted (fewer, as many and more ranks, other thread
# counts, another --exec) ends with the same checksum bits and the same mesh figures as
# the straight run; on as many ranks the partition is kept, so every report figure
# (blocks moved, balance steps, most blocks on a rank) matches too.
# Usage: checkpoint_miniamr.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() {
  local name="$1" np="$2"
  shift 2
  run_app miniamr "$name" "$np" --report_perf 0 "$@"
}
# Figures that do not depend on the rank count, and those that do (kept partition).
invariant() { fields "$1" checksum var_checksums blocks_per_step refinements total_blocks flops splits merges refine_steps checksums timesteps_done validation; }
same_ranks() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r[k] for k in ('moved','balance_steps','max_blocks_per_rank')]))" "$1"
}

# A moving sphere surface refined two levels: blocks split, merge and migrate every
# refinement step, so the restored forest and partition matter.
problem=(--nx 4 --ny 4 --nz 4 --init_x 2 --init_y 1 --init_z 1 --num_vars 3 --stages_per_ts 4
  --num_refine 2 --refine_freq 2 --checksum_freq 2
  --num_objects 1 --object 2 0 -0.6 -0.6 -0.6 0.25 0.25 0.25 0.9 0.9 0.9 0 0 0)
for np in 2 3; do run "straight_np$np" "$np" "${problem[@]}" --num_tsteps 12; done
expect_same straight_np2 straight_np3 invariant
ck="$tmp/ck"
run first 2 "${problem[@]}" --num_tsteps 5 --checkpoint-every 5 --checkpoint-dir "$ck"

run r_np2 2 --num_tsteps 12 --restart latest --checkpoint-dir "$ck" --threads 2
run r_np2_bsp 2 --num_tsteps 12 --restart latest --checkpoint-dir "$ck" --exec bsp
run r_np1 1 --num_tsteps 12 --restart latest --checkpoint-dir "$ck" --exec forkjoin --threads 2
run r_np3 3 --num_tsteps 12 --restart "$ck/step-5" --send_faces
run r_np4 4 --num_tsteps 12 --restart latest --checkpoint-dir "$ck" "${problem[@]}"
for r in r_np2 r_np2_bsp r_np1 r_np3 r_np4; do expect_same straight_np2 "$r" invariant; done
for r in r_np2 r_np2_bsp; do expect_same straight_np2 "$r" same_ranks; done
expect_same straight_np3 r_np3 invariant

# Restarting twice, the middle run writing checkpoints every 2 timesteps under bsp.
run chain1 3 --num_tsteps 9 --restart latest --checkpoint-dir "$ck" --checkpoint-every 2 --exec bsp
[[ "$(ls "$ck" | tr '\n' ' ')" == "step-6 step-8 " ]] || fail "--keep 2 left $(ls "$ck")"
run chain2 2 --num_tsteps 12 --restart latest --checkpoint-dir "$ck"
expect_same straight_np2 chain2 invariant

set +e
mpirun -np 2 --oversubscribe "$bin/miniamr" --num_tsteps 12 --restart latest \
  --checkpoint-dir "$ck" --num_vars 5 >"$tmp/bad.out" 2>"$tmp/bad.err"
code=$?
set -e
[[ $code -ne 0 ]] || fail "a disagreeing --num_vars was accepted"
grep -q "^miniamr: error: --num_vars: 5 given, but the checkpoint .*step-8/checkpoint.h5 was written with 3" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; fail "no error line naming --num_vars"; }
echo "checkpoint_miniamr: restarted runs match the straight run bitwise"
