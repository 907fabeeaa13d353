#!/usr/bin/env bash
# euler checkpoint and restart: runs stopped by --max-cycles and restarted (on fewer, as
# many and more ranks, other thread counts, every --exec model, with and without the
# replayed cycle, restarting twice) end with the same checksum, cycle count, time,
# conserved-total bits and --history CSV as the straight run, for the Sod tube and a 3-D
# blast; a problem option that disagrees with the checkpoint stops the run naming it.
# Usage: checkpoint_euler.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# run NAME RANKS ARGS...: runs euler with a report in $tmp/NAME.json, history $tmp/NAME.csv.
run() {
  local name="$1" np="$2"
  shift 2
  run_app euler "$name" "$np" --history "$tmp/$name.csv" "$@"
}
invariant() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r.get(k) for k in ('checksum','cycles','time','conserved_hex','blocks','sod_l1_density_error')]))" "$1"
}
# expect_same_run REF RUN: the invariant and the --history CSV of RUN equal REF's.
expect_same_run() {
  expect_same "$1" "$2"
  cmp -s "$tmp/$1.csv" "$tmp/$2.csv" || fail "$2: the --history CSV differs from $1's"
}

# Sod (default: 128 x 8 cells, 233 cycles to t = 0.25), stopped after 30 cycles.
run sod_straight 2
ck="$tmp/ck_sod"
run sod_first 2 --max-cycles 30 --checkpoint-every 15 --checkpoint-dir "$ck"
[[ -d "$ck/step-15" && -d "$ck/step-30" ]] || fail "expected step-15 and step-30 in $(ls "$ck")"
run sod_np1_bsp 1 --restart "$ck/step-15" --exec bsp
run sod_np3_df_t2 3 --restart latest --checkpoint-dir "$ck" --threads 2
run sod_np2_noreplay 2 --restart "$ck/step-15" --no-replay --threads 2 --problem sod
for r in sod_np1_bsp sod_np3_df_t2 sod_np2_noreplay; do expect_same_run sod_straight "$r"; done

# A 3-D periodic blast, 12 cycles, interrupted twice: 4 -> 8 -> 12.
blast=(--problem blast --dim 3 --cells 16 16 8 --block-cells 8 4 4)
run blast_straight 2 "${blast[@]}" --max-cycles 12
ck="$tmp/ck_blast"
run blast_first 2 "${blast[@]}" --max-cycles 4 --checkpoint-every 4 --checkpoint-dir "$ck"
run blast_second 4 --restart latest --checkpoint-dir "$ck" --max-cycles 8 --checkpoint-every 4 \
  --exec forkjoin --threads 2
[[ -d "$ck/step-8" ]] || fail "the restarted blast wrote $(ls "$ck")"
run blast_third 3 --restart latest --checkpoint-dir "$ck" --max-cycles 12 --threads 2
expect_same_run blast_straight blast_third

# An adaptive blast (two levels, level-jump ghosts and flux correction): the restart
# rebuilds the forest from the stored leaves on another rank count.
amr=(--problem blast --dim 3 --cells 16 16 16 --block-cells 4 4 4 --max-level 1 --adapt-every 1
  --refine-above 0.5 --derefine-below 0.45 --blast-radius 0.2)
run amr_straight 2 "${amr[@]}" --max-cycles 12
ck_amr="$tmp/ck_amr"
run amr_first 2 "${amr[@]}" --max-cycles 6 --checkpoint-every 6 --checkpoint-dir "$ck_amr"
run amr_restarted 3 --restart latest --checkpoint-dir "$ck_amr" --max-cycles 12 --threads 2
expect_same_run amr_straight amr_restarted

# A problem option that disagrees with the checkpoint: one line naming it, exit != 0.
set +e
mpirun -np 2 --oversubscribe "$bin/euler" --restart latest --checkpoint-dir "$ck" --cfl 0.4 \
  >"$tmp/bad.out" 2>"$tmp/bad.err"
code=$?
set -e
[[ $code -ne 0 ]] || fail "a disagreeing --cfl was accepted"
grep -q "^euler: error: --cfl: 0.4 given, but the checkpoint .*step-8/checkpoint.h5 was written with 0.3" "$tmp/bad.err" ||
  { cat "$tmp/bad.err"; fail "no error line naming --cfl"; }
[[ "$(grep -c "error:" "$tmp/bad.err")" == 1 ]] || { cat "$tmp/bad.err"; fail "more than one error line"; }
echo "checkpoint_euler: restarted Sod, blast and adaptive blast runs match the straight runs bitwise"
