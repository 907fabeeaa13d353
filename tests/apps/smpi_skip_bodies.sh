#!/usr/bin/env bash
# Skipped bodies (docs/scaling-sim.md, "Skipped bodies"): radhydro's 3-D radiative shock on 8
# simulated ranks, calibrated compute, takes exactly the same simulated loop time with its
# charged bodies skipped (TESSERA_COMPUTE_SKIP_BODIES=1, fields folded) as with them run,
# under bsp and dataflow on both platforms; the skipped run's report says so; bad settings
# fail on every rank with a message naming the variable or the option.
# Usage: smpi_skip_bodies.sh <build>/bin
# Skipped (exit 77) without SimGrid; builds radhydro into the SMPI build if it lacks it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_smpi radhydro

rh="$smpi_build/bin/radhydro"
# 2 x 2 x 2 blocks of 8^3 per rank (as bench/scaling-sim's weak input, smaller), two
# V-cycles per cycle, the problem's fixed --max-dt.
problem=(--problem rad-shock --dim 3 --block-cells 8 8 8 --rad-solver mg --rad-sweeps 2 --quiet)
json() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
sim() {  # sim NAME NP OPTIONS... (environment from the caller; the platform first if any)
  local name="$1"
  shift
  timeout 300 "$src/scripts/smpi-run" "$@" --report "$tmp/$name.json" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name exited non-zero"; }
}
refused() {  # refused NAME PATTERN NP OPTIONS...: the run fails and prints PATTERN
  local name="$1" pattern="$2"
  shift 2
  if timeout 300 "$src/scripts/smpi-run" "$@" >"$tmp/$name.out" 2>&1; then
    fail "$name: accepted"
  fi
  grep -q -- "$pattern" "$tmp/$name.out" || { cat "$tmp/$name.out"; fail "$name: no '$pattern'"; }
  echo "ok: $name refused: $(grep -m1 -- "$pattern" "$tmp/$name.out")"
}

# Calibration: one simulated rank with the blocks each rank has below.
TESSERA_COMPUTE_CALIBRATE="$tmp/cal.json" sim calibrate 1 "$rh" --exec dataflow \
  --cells 16 16 16 --max-cycles 2 "${problem[@]}"
input=(--cells 32 32 32 --max-cycles 2 "${problem[@]}")
export TESSERA_COMPUTE_MODEL="$tmp/cal.json" TESSERA_COMPUTE_OVERHEADS=1
export SMPI_EXTRA_CFG=--cfg=smpi/simulate-computation:no
for platform in fast slow; do
  for model in bsp dataflow; do
    run="${platform}_$model"
    TESSERA_COMPUTE_SKIP_BODIES=0 sim "$run" --platform "$platform" 8 "$rh" --exec "$model" "${input[@]}"
    TESSERA_COMPUTE_SKIP_BODIES=1 sim "${run}_skipped" --platform "$platform" 8 "$rh" \
      --exec "$model" "${input[@]}"
    ran="$(json "$tmp/$run.json" "['loop_s'].hex()")"
    skipped="$(json "$tmp/${run}_skipped.json" "['loop_s'].hex()")"
    [[ "$ran" == "$skipped" ]] ||
      fail "$run: loop_s $ran with the bodies run, $skipped with them skipped"
    [[ "$(json "$tmp/${run}_skipped.json" "['bodies_skipped']")" == True ]] ||
      fail "$run: the skipped run's report lacks bodies_skipped"
    [[ "$(json "$tmp/$run.json" ".get('bodies_skipped')")" == None ]] ||
      fail "$run: the run with bodies says bodies_skipped"
    compute="$(json "$tmp/${run}_skipped.json" "['compute']")"
    [[ "$compute" == *"charged and skipped"* ]] || fail "$run: report says compute '$compute'"
    [[ "$(json "$tmp/$run.json" "['cycles']")" == 2 ]] || fail "$run: not 2 cycles"
    echo "ok: $run: loop_s $(json "$tmp/$run.json" "['loop_s']") simulated s with the bodies run" \
      "and skipped; checksum $(json "$tmp/$run.json" "['checksum']") with them"
  done
done

# Bad settings: every rank fails with one line naming what is wrong.
TESSERA_COMPUTE_SKIP_BODIES=yes refused bad_value "TESSERA_COMPUTE_SKIP_BODIES: expected 0 or 1" \
  2 "$rh" "${input[@]}"
TESSERA_COMPUTE_SKIP_BODIES=1 refused tolerance "--rad-sweeps" 2 "$rh" \
  --cells 32 16 16 --max-cycles 2 --problem rad-shock --dim 3 --block-cells 8 8 8 --rad-solver mg \
  --rad-sweeps 0 --quiet
(
  unset TESSERA_COMPUTE_MODEL
  TESSERA_COMPUTE_SKIP_BODIES=1 refused no_model "TESSERA_COMPUTE_SKIP_BODIES=1 needs TESSERA_COMPUTE_MODEL" \
    2 "$rh" "${input[@]}"
)
# A real build has no bodies to skip: it refuses the variable too.
if TESSERA_COMPUTE_SKIP_BODIES=1 launch 2 "$bin/radhydro" "${input[@]}" >"$tmp/real.out" 2>&1; then
  fail "a real run accepted TESSERA_COMPUTE_SKIP_BODIES=1"
fi
grep -q "TESSERA_COMPUTE" "$tmp/real.out" || { cat "$tmp/real.out"; fail "real run: no message naming the variable"; }
echo "ok: real run refused: $(grep -m1 TESSERA_COMPUTE "$tmp/real.out")"
echo "smpi_skip_bodies: PASS"
