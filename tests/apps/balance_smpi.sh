#!/usr/bin/env bash
# --balance cost on simulated uneven hosts (bench/platforms/half-speed.xml: even hosts at
# full speed, odd ones at half): with calibrated compute each rank measures its host's
# speed (deferred charges scaled by it, each simulated rank with its own clock state), so
# one repartition gives the full-speed ranks twice the half-speed ones' blocks, and the
# checksum stays that of --balance count.
# Usage: balance_smpi.sh <build>/bin
# Skipped (exit 77) without SimGrid; uses the SMPI build as smpi_jacobi7.sh does.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_smpi jacobi7

j7="$smpi_build/bin/jacobi7"
json() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
sim() { # sim NAME NP OPTIONS... (environment from the caller)
  local name="$1" np="$2"
  shift 2
  timeout 300 "$src/scripts/smpi-run" --platform "$src/bench/platforms/half-speed.xml" "$np" \
    "$j7" --quiet --report "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name exited non-zero"; }
}

# A warm calibration of one simulated rank with the blocks each rank starts with.
TESSERA_COMPUTE_CALIBRATE="$tmp/j7.json" sim calibrate 1 --exec bsp --blocks 2 2 2 \
  --block-cells 8 8 8 --iters 20 --check-every 0
export TESSERA_COMPUTE_MODEL="$tmp/j7.json" TESSERA_COMPUTE_OVERHEADS=1 \
  SMPI_EXTRA_CFG=--cfg=smpi/simulate-computation:no
input=(--exec dataflow --blocks 4 4 2 --block-cells 8 8 8 --iters 12 --check-every 4)
sim count 4 "${input[@]}"
sim cost 4 "${input[@]}" --balance cost --balance-after 2 --balance-every 4
[[ "$(json "$tmp/cost.json" "['checksum']")" == "$(json "$tmp/count.json" "['checksum']")" ]] ||
  fail "cost: checksum differs from count's"
# 32 blocks over speeds 2, 1, 2, 1: rank 0 (full speed) holds 10 or 11 after the move.
moved="$(json "$tmp/cost.json" "['balance']['blocks_moved']")"
local_blocks="$(json "$tmp/cost.json" "['balance']['local_blocks']")"
((moved > 0)) || fail "cost moved no block on uneven hosts"
((local_blocks == 10 || local_blocks == 11)) ||
  fail "cost: the full-speed rank 0 holds $local_blocks blocks, expected 10 or 11"
echo "ok: $moved blocks moved, rank 0 holds $local_blocks of 32; checksum $(json "$tmp/cost.json" "['checksum']")"
echo "balance_smpi: PASS"
