#!/usr/bin/env bash
# mg class A (256^3, 4 iterations) verifies against NPB's published norm on 2 ranks.
# Registered with the label "long": not part of the default test run.
# Usage: mg_class_a.sh <build>/bin
set -euo pipefail
bin="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
timeout -k 10 900 mpirun -np 2 --oversubscribe "$bin/mg" --class A --hang-timeout 300 \
  --report "$tmp/a.json" >"$tmp/a.out" 2>&1 || { cat "$tmp/a.out"; echo "FAIL: class A exited non-zero"; exit 1; }
grep -q " VERIFICATION SUCCESSFUL" "$tmp/a.out" || { cat "$tmp/a.out"; echo "FAIL: class A not verified"; exit 1; }
grep "L2 Norm\|Mop/s total" "$tmp/a.out"
echo "mg_class_a: PASS"
