#!/usr/bin/env bash
# The adaptive apps under SimGrid SMPI (p4est and libsc built with SMPI's wrappers,
# scripts/smpi-build): miniamr's moving sphere (refining, coarsening and moving blocks) on
# 4 simulated ranks, bsp and dataflow on the fast platform and dataflow on the slow one,
# and euler --scheme dg p = 3 on smooth-blobs adapting 2 levels every cycle on 4 simulated
# ranks, bsp and dataflow with and without enclaves, give the checksums of real 2-rank
# runs. A plot file of euler, which needs parallel HDF5, is refused up front.
# Registered with the label "long" (app_long_smpi_adaptive): building p4est, libsc, miniamr
# and euler for SMPI takes minutes, so the default test run leaves it to CI's long suite.
# Usage: smpi_adaptive.sh <build>/bin
# Skipped (exit 77, ctest's SKIP_RETURN_CODE) without SimGrid, or when scripts/smpi-build
# cannot fetch p4est's sources. Uses the SMPI build in $TESSERA_SMPI_BUILD (default
# <source>/build-smpi; the apps missing there are built first).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh" "$@"
require_smpi miniamr euler

miniamr=(--nx 4 --ny 4 --nz 4 --num_vars 3 --comm_vars 2 --stages_per_ts 2 --checksum_freq 1
  --init_x 2 --init_y 2 --init_z 2 --num_refine 2 --refine_freq 2 --num_tsteps 12
  --max_blocks 4000 --num_objects 1 --object 2 0 -0.2 0.1 0.3 0.08 0.05 0.03 0.35 0.35 0.35 0 0 0
  --report_perf 0 --quiet)
dg=(--scheme dg --order 3 --problem smooth-blobs --dim 3 --cells 4 4 4 --block-cells 2 2 2
  --max-cycles 2 --max-level 2 --adapt-every 1 --quiet)
field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

real() { # real APP NAME ARGS...: the checksum of a real 2-rank run
  local app=$1 name=$2
  shift 2
  timeout -k 10 120 mpirun -np 2 --oversubscribe --bind-to none "$bin/$app" --exec dataflow \
    "$@" --report "$tmp/$name.json" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "real 2-rank $app exited non-zero"; }
  field "$tmp/$name.json" checksum
}

simulated() { # simulated APP WANT PLATFORM MODEL ARGS...: 4 simulated ranks give WANT
  local app=$1 want=$2 platform=$3 model=$4
  shift 4
  local name="smpi_${app}_${platform}_${model}"
  timeout -k 10 300 "$src/scripts/smpi-run" --platform "$platform" 4 "$smpi_build/bin/$app" \
    --exec "$model" "$@" --report "$tmp/$name.json" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name: $app on 4 simulated ranks exited non-zero"; }
  local got
  got="$(field "$tmp/$name.json" checksum)"
  [[ "$got" == "$want" ]] || fail "$name: checksum $got differs from the real 2-rank run's $want"
  echo "ok: $name: checksum $got as the real 2-rank run"
}

want="$(real miniamr miniamr "${miniamr[@]}")"
simulated miniamr "$want" fast bsp "${miniamr[@]}"
simulated miniamr "$want" fast dataflow "${miniamr[@]}"
simulated miniamr "$want" slow dataflow "${miniamr[@]}"
# The input must adapt and move blocks under the simulator too (not pass vacuously).
report="$tmp/smpi_miniamr_slow_dataflow.json"
(($(field "$report" splits) > 0 && $(field "$report" merges) > 0 && $(field "$report" moved) > 0)) ||
  fail "miniamr on 4 simulated ranks did not refine, coarsen and move blocks"

want="$(real euler dg "${dg[@]}")"
simulated euler "$want" fast bsp "${dg[@]}"
simulated euler "$want" fast dataflow "${dg[@]}"
simulated euler "$want" slow dataflow "${dg[@]}" --priorities none
(($(field "$tmp/smpi_euler_fast_dataflow.json" adaptations) > 0)) ||
  fail "euler dg on 4 simulated ranks did not adapt"

# Plot files need parallel HDF5: refused before any work (euler's finite volumes; dg has no
# plot files), every rank exits non-zero.
if "$src/scripts/smpi-run" 2 "$smpi_build/bin/euler" --problem sod --dim 2 --cells 16 16 \
  --block-cells 8 8 --max-cycles 2 --output-every 1 --output-dir "$tmp/plots" \
  >"$tmp/plot.out" 2>&1; then
  fail "--output-every ran in an SMPI build"
fi
grep -q -- "--output-dir" "$tmp/plot.out" || { cat "$tmp/plot.out"; fail "the refusal does not name --output-dir"; }
echo "ok: --output-every refused: $(grep -m1 -- '--output-dir' "$tmp/plot.out")"
echo "PASS: miniamr and euler dg on 4 simulated ranks match the real 2-rank checksums"
