#!/usr/bin/env bash
# kill -9 of every rank at a random moment (often during a checkpoint write: writes take
# much of these runs), three times in a row per app, each time continuing with --restart latest:
# the last run ends with the checksum of an uninterrupted run, for jacobi7 and miniamr.
# A crash never leaves an unusable step-N/ (only step-N.tmp/ leftovers, which latest skips).
# Usage: checkpoint_kill.sh <build>/bin
set -euo pipefail
shopt -s nullglob
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
checksum() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checksum'])" "$1"; }
RANDOM=${TESSERA_TEST_SEED:-$$}
# The complete checkpoints (step-N/) in a directory.
complete() {
  local d
  for d in "$1"/step-*; do [[ "$(basename "$d")" =~ ^step-[0-9]+$ ]] && echo "$d"; done
  return 0
}

# kill_at APP DELAY_MS NP ARGS...: starts the app under mpirun and kills all its ranks
# with SIGKILL after DELAY_MS (or lets it finish if it is faster).
kill_at() {
  local app="$1" delay="$2" np="$3"
  shift 3
  mpirun -np "$np" --oversubscribe "$bin/$app" --quiet "$@" >"$tmp/killed.out" 2>&1 &
  local launcher=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  local ranks
  ranks="$(pgrep -P "$launcher" || true)"
  [[ -n "$ranks" ]] && kill -9 $ranks 2>/dev/null || true
  wait "$launcher" 2>/dev/null || true
}

# cycle APP NAME CYCLES ARGS...: the straight run, then CYCLES killed runs, then the last
# restart; compares the checksums.
cycle() {
  local app="$1" name="$2" cycles="$3"
  shift 3
  local ck="$tmp/$name.ck"
  timeout -k 10 120 mpirun -np 2 --oversubscribe "$bin/$app" --quiet --report "$tmp/$name.json" "$@" \
    >"$tmp/$name.out" 2>&1 || { cat "$tmp/$name.out"; fail "$name: straight run failed"; }
  local straight_s
  straight_s="$(/usr/bin/python3 -c "import json,sys; print(int(1000*json.load(open(sys.argv[1]))['wall_s']))" "$tmp/$name.json")"
  local kills=0 torn=0
  for ((c = 0; c < cycles; ++c)); do
    local np=$((1 + RANDOM % 3)) restart=()
    [[ -n "$(complete "$ck")" ]] && restart=(--restart latest)
    # Somewhere in the run including start-up (~300 ms), checkpoint writes included.
    local delay=$((150 + RANDOM % (straight_s + 800)))
    kill_at "$app" "$delay" "$np" "$@" --checkpoint-every "$every" --checkpoint-dir "$ck" \
      "${restart[@]}"
    kills=$((kills + 1))
    compgen -G "$ck/step-*.tmp" >/dev/null && torn=$((torn + 1))
    # Every complete checkpoint left behind opens and verifies: a restart from it works.
    for d in $(complete "$ck"); do
      [[ -f "$d/checkpoint.h5" ]] || fail "$name: $d is complete but has no checkpoint.h5"
    done
  done
  local restart=()
  [[ -n "$(complete "$ck")" ]] && restart=(--restart latest)
  timeout -k 10 120 mpirun -np 3 --oversubscribe "$bin/$app" --quiet --report "$tmp/$name.final.json" \
    "$@" --checkpoint-dir "$ck" "${restart[@]}" >"$tmp/$name.final.out" 2>&1 ||
    { cat "$tmp/$name.final.out"; fail "$name: the restart after $kills kills failed"; }
  local want got
  want="$(checksum "$tmp/$name.json")"
  got="$(checksum "$tmp/$name.final.json")"
  [[ "$want" == "$got" ]] || fail "$name: checksum $got after $kills kills, $want straight"
  echo "$name: $kills kills ($torn left an unfinished write), then ${restart[*]:-a fresh run}: checksum $got as straight"
}

every=5
cycle jacobi7 jacobi7 3 --blocks 4 4 4 --block-cells 12 12 12 --iters 200 --check-every 10
every=2
cycle miniamr miniamr 3 --nx 6 --ny 6 --nz 6 --init_x 2 --num_vars 8 --stages_per_ts 4 \
  --num_refine 2 --refine_freq 2 --num_tsteps 30 --report_perf 0 \
  --num_objects 1 --object 2 0 -0.6 -0.6 -0.6 0.05 0.05 0.05 0.9 0.9 0.9 0 0 0
