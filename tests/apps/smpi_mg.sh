#!/usr/bin/env bash
# mg class S on 8 simulated ranks (SimGrid SMPI, fast and slow platforms, bsp and dataflow,
# and the staged halo exchange) gives the same rnm2 bits as a real 2-rank run, and NPB's
# verification passes.
# Usage: smpi_mg.sh <build>/bin
# Skipped (exit 77, ctest's SKIP_RETURN_CODE) when SimGrid is not installed. Uses the SMPI
# build in $TESSERA_SMPI_BUILD (default <source>/build-smpi, which scripts/test builds
# first); builds mg there with scripts/smpi-build when it is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_smpi mg

# Blocks of 8^3: the 32^3 grid has 64 of them, so all 8 simulated ranks hold some.
input=(--class S --block-cells 8 --quiet)
bits() {
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['rnm2_hex'], r['verified'])" "$1"
}

timeout -k 10 120 mpirun -np 2 --oversubscribe "$bin/mg" --exec bsp "${input[@]}" \
  --report "$tmp/real.json" >"$tmp/real.out" 2>&1 ||
  { cat "$tmp/real.out"; fail "real 2-rank mg exited non-zero"; }
want="$(bits "$tmp/real.json")"
[[ "$want" == *" True" || "$want" == *" true" ]] || fail "real 2-rank mg class S not verified: $want"

# The last run exchanges ghosts in stages (--staged-halo, what the 1024-rank sweeps use).
for run in "fast bsp" "fast dataflow" "slow bsp" "slow dataflow" "fast dataflow --staged-halo"; do
  read -r platform model staged <<<"$run"
  name="smpi_${platform}_${model}${staged:+_staged}"
  timeout -k 10 300 "$src/scripts/smpi-run" --platform "$platform" 8 "$smpi_build/bin/mg" \
    --exec "$model" "${input[@]}" ${staged:+"$staged"} --report "$tmp/$name.json" \
    >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name: mg on 8 simulated ranks exited non-zero"; }
  got="$(bits "$tmp/$name.json")"
  [[ "$got" == "$want" ]] || fail "$name: rnm2 bits/verification $got differ from the real 2-rank run's $want"
  echo "ok: $name: rnm2 $got as the real 2-rank run"
done
echo "PASS: mg class S on 8 simulated ranks matches the real 2-rank rnm2 bits"
