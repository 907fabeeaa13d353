#!/usr/bin/env bash
# jacobi7 on 16 simulated ranks (SimGrid SMPI, both platforms of bench/platforms) gives the
# same checksum and residual history as a real 2-rank run, under bsp and dataflow, with
# the residual checks' non-blocking allreduces inside the iterations.
# Usage: smpi_jacobi7.sh <build>/bin
# Skipped (exit 77, ctest's SKIP_RETURN_CODE) when SimGrid is not installed. Uses the SMPI
# build in $TESSERA_SMPI_BUILD (default <source>/build-smpi, which scripts/test builds
# first); builds it with scripts/smpi-build when it lacks jacobi7 (a minute or two).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_smpi jacobi7

input=(--blocks 4 4 4 --block-cells 8 8 8 --iters 30 --check-every 7 --quiet)
invariant() { fields "$1" checksum history; }

timeout -k 10 120 mpirun -np 2 --oversubscribe "$bin/jacobi7" --exec bsp "${input[@]}" \
  --report "$tmp/real.json" >"$tmp/real.out" 2>&1 ||
  { cat "$tmp/real.out"; fail "real 2-rank jacobi7 exited non-zero"; }
want="$(invariant "$tmp/real.json")"

for platform in fast slow; do
  for model in bsp dataflow; do
    name="smpi_${platform}_${model}"
    timeout -k 10 300 "$src/scripts/smpi-run" --platform "$platform" 16 "$smpi_build/bin/jacobi7" \
      --exec "$model" "${input[@]}" --report "$tmp/$name.json" >"$tmp/$name.out" 2>&1 ||
      { cat "$tmp/$name.out"; fail "$name: jacobi7 on 16 simulated ranks exited non-zero"; }
    got="$(invariant "$tmp/$name.json")"
    [[ "$got" == "$want" ]] || fail "$name: checksum/history $got differs from the real 2-rank run's $want"
    ranks="$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ranks'])" "$tmp/$name.json")"
    [[ "$ranks" == 16 ]] || fail "$name: report says $ranks ranks, expected 16"
    echo "ok: $name matches the real 2-rank run ($(grep -o 'checksum [0-9a-f]*' "$tmp/$name.out" | tail -1))"
  done
done

# An SMPI build refuses the shared-memory rings (they would bypass the simulated network).
if "$src/scripts/smpi-run" 2 "$smpi_build/bin/jacobi7" --intranode rings "${input[@]}" \
  >"$tmp/rings.out" 2>&1; then
  fail "--intranode rings was accepted under SMPI"
fi
grep -q -- "--intranode" "$tmp/rings.out" || { cat "$tmp/rings.out"; fail "no message naming --intranode"; }
echo "PASS: jacobi7 on 16 simulated ranks matches the real 2-rank checksum"
