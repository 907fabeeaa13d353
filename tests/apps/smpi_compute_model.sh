#!/usr/bin/env bash
# Modelled compute of simulated runs (docs/scaling-sim.md): a warm 1-rank calibration
# (TESSERA_COMPUTE_CALIBRATE) lists jacobi7's and mg's kernels; runs on 8 simulated ranks
# charged from it (TESSERA_COMPUTE_MODEL), bsp and dataflow, give the measured runs'
# checksum / rnm2 bits and say "modelled" in their reports; a calibration with 1 ms per
# sweep makes the simulated solve take at least that long (the charge is applied); bad
# settings fail on every rank with a message naming the variable; a real 2-rank run
# calibrates kernels and halo packing (rank 0 writes).
# Usage: smpi_compute_model.sh <build>/bin
# Skipped (exit 77) without SimGrid; uses the SMPI build as smpi_jacobi7.sh does.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_smpi jacobi7
[[ -x "$smpi_build/bin/mg" ]] || require_smpi mg

j7="$smpi_build/bin/jacobi7"
input=(--blocks 4 4 4 --block-cells 8 8 8 --iters 20 --check-every 7 --quiet)
json() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
sim() {  # sim NAME NP PROGRAM OPTIONS... (environment from the caller)
  local name="$1"
  shift
  timeout 300 "$src/scripts/smpi-run" "$@" --report "$tmp/$name.json" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name exited non-zero"; }
}

# Calibration: one rank, the same blocks as each simulated rank has below.
TESSERA_COMPUTE_CALIBRATE="$tmp/j7.json" sim calibrate 1 "$j7" --exec bsp \
  --blocks 2 2 2 --block-cells 8 8 8 --iters 20 --check-every 0 --quiet
sweep="$(json "$tmp/j7.json" "['tasks'][[t['name'] for t in json.load(open(sys.argv[1]))['tasks']].index('jacobi')]")"
[[ "$(/usr/bin/python3 -c "import sys; t=$sweep; print(t['work'], t['samples'] >= 160, t['seconds'] > 0)")" == "512 True True" ]] ||
  fail "calibration lacks 160 timed 8^3 sweeps: $sweep"

sim measured 8 "$j7" --exec bsp "${input[@]}"
want="$(json "$tmp/measured.json" "['checksum']")"
for model in bsp dataflow; do
  TESSERA_COMPUTE_MODEL="$tmp/j7.json" sim "modelled_$model" 8 "$j7" --exec "$model" "${input[@]}"
  got="$(json "$tmp/modelled_$model.json" "['checksum']")"
  [[ "$got" == "$want" ]] || fail "modelled $model: checksum $got differs from the measured run's $want"
  compute="$(json "$tmp/modelled_$model.json" "['compute']")"
  [[ "$compute" =~ ^"modelled from".*\(([1-9][0-9]*)" bodies charged" ]] ||
    fail "modelled $model: report says compute '$compute'"
  echo "ok: jacobi7 modelled $model: checksum $got; $compute"
done

# Calibrated: bodies and tessera's own work charged, nothing timed on the shared core.
TESSERA_COMPUTE_MODEL="$tmp/j7.json" TESSERA_COMPUTE_OVERHEADS=1 \
  SMPI_EXTRA_CFG=--cfg=smpi/simulate-computation:no sim calibrated 8 "$j7" --exec dataflow "${input[@]}"
got="$(json "$tmp/calibrated.json" "['checksum']")"
[[ "$got" == "$want" ]] || fail "calibrated: checksum $got differs from the measured run's $want"
compute="$(json "$tmp/calibrated.json" "['compute']")"
[[ "$compute" =~ ", "[1-9][0-9]*" overheads charged" ]] || fail "calibrated: report says compute '$compute'"
echo "ok: jacobi7 calibrated dataflow: checksum $got; $compute"

# The charge is what the calibration says: 1 ms per sweep, 8 sweeps per rank and iteration.
/usr/bin/python3 - "$tmp/j7.json" "$tmp/slow.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
for t in c["tasks"]:
    if t["name"] == "jacobi":
        t["seconds"] = 1e-3
json.dump(c, open(sys.argv[2], "w"))
EOF
TESSERA_COMPUTE_MODEL="$tmp/slow.json" sim charged 8 "$j7" --exec bsp "${input[@]}"
solve="$(json "$tmp/charged.json" "['solve_s']")"
/usr/bin/python3 -c "import sys; sys.exit(0 if $solve >= 20 * 8 * 1e-3 else 1)" ||
  fail "1 ms per sweep charged, yet 20 iterations of 8 sweeps took $solve simulated s"
[[ "$(json "$tmp/charged.json" "['checksum']")" == "$want" ]] || fail "charged run: checksum differs"
echo "ok: 1 ms per sweep gives $solve simulated s for 160 sweeps per rank"
# With SMPI's timing off the charges are deferred to the next MPI call (one sleep each):
# none may be lost or doubled on the way to the final clock read.
TESSERA_COMPUTE_MODEL="$tmp/slow.json" SMPI_EXTRA_CFG=--cfg=smpi/simulate-computation:no \
  sim deferred 8 "$j7" --exec dataflow "${input[@]}"
solve="$(json "$tmp/deferred.json" "['solve_s']")"
/usr/bin/python3 -c "import sys; sys.exit(0 if 0.16 <= $solve <= 0.17 else 1)" ||
  fail "1 ms per sweep charged (deferred), yet 160 sweeps per rank took $solve simulated s"
[[ "$(json "$tmp/deferred.json" "['checksum']")" == "$want" ]] || fail "deferred run: checksum differs"
echo "ok: deferred charges: $solve simulated s for 160 sweeps of 1 ms per rank"

# mg: kernels on every level, interpolated between calibrated sizes.
mg=(--nx 32 --nit 2 --block-cells 16 16 16 --quiet)
TESSERA_COMPUTE_CALIBRATE="$tmp/mg.json" sim mg_calibrate 1 "$smpi_build/bin/mg" --exec bsp \
  --nx 32 --nit 4 --block-cells 16 16 16 --quiet
sim mg_measured 8 "$smpi_build/bin/mg" --exec dataflow "${mg[@]}"
TESSERA_COMPUTE_MODEL="$tmp/mg.json" sim mg_modelled 8 "$smpi_build/bin/mg" --exec dataflow "${mg[@]}"
for f in rnm2_hex verified; do
  a="$(json "$tmp/mg_measured.json" "['$f']")"
  b="$(json "$tmp/mg_modelled.json" "['$f']")"
  [[ "$a" == "$b" ]] || fail "mg modelled: $f $b differs from the measured run's $a"
done
echo "ok: mg modelled dataflow: rnm2 $(json "$tmp/mg_modelled.json" "['checksum']")"

# Bad settings: every rank fails, the message names the variable.
expect_failure() {  # NAME VARIABLE=VALUE NP PROGRAM
  local name="$1" setting="$2"
  shift 2
  if env "$setting" timeout 120 "$@" >"$tmp/$name.out" 2>&1; then
    fail "$name: $setting was accepted"
  fi
  grep -q "${setting%%=*}" "$tmp/$name.out" || { cat "$tmp/$name.out"; fail "$name: no message naming ${setting%%=*}"; }
  echo "ok: $name refused"
}
echo '{"format": "something else"}' >"$tmp/bad.json"
expect_failure bad_file "TESSERA_COMPUTE_MODEL=$tmp/bad.json" "$src/scripts/smpi-run" 4 "$j7" "${input[@]}"
expect_failure two_ranks "TESSERA_COMPUTE_CALIBRATE=$tmp/x.json" "$src/scripts/smpi-run" 2 "$j7" "${input[@]}"
TESSERA_COMPUTE_MODEL="$tmp/j7.json" expect_failure bad_overheads "TESSERA_COMPUTE_OVERHEADS=yes" \
  "$src/scripts/smpi-run" 4 "$j7" "${input[@]}"
if [[ -x "$bin/jacobi7" ]]; then
  expect_failure real_build "TESSERA_COMPUTE_MODEL=$tmp/j7.json" "$bin/jacobi7" "${input[@]}"
  # A real run calibrates on several ranks (rank 0 writes): packing is timed too.
  TESSERA_COMPUTE_CALIBRATE="$tmp/real.json" launch 2 "$bin/jacobi7" --exec bsp --intranode mpi \
    --blocks 4 2 2 --block-cells 8 8 8 --iters 20 --check-every 0 --quiet >"$tmp/real.out" 2>&1 ||
    { cat "$tmp/real.out"; fail "real 2-rank calibration exited non-zero"; }
  # The two ranks split x: sweeps reading an x face from the receive buffer (variant 28) are
  # timed apart from the others, packing as x faces (variant 1); the runtime's and the MPI
  # calls' own work is timed too.
  names="$(/usr/bin/python3 -c "import json,sys; print(' '.join(sorted({t['name'] + ('.' + str(t['variant']) if t.get('variant') else '') for t in json.load(open(sys.argv[1]))['tasks']})))" "$tmp/real.json")"
  [[ "$names" == "halo.pack.1 jacobi jacobi.28 mpi.complete mpi.post runtime.finish runtime.inline runtime.submit" ]] ||
    fail "real 2-rank calibration lists $names"
  echo "ok: real 2-rank calibration times $names"
fi
echo "PASS: modelled compute keeps the bits, charges the calibration and refuses bad settings"
