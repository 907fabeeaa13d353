#!/usr/bin/env bash
# mg class S verifies and its rnm2 is bitwise identical under every execution model, on 1,
# 2, 3 and 4 ranks (not only powers of two), 1 and 2 threads, with and without the replayed
# iteration graph, for several tile sizes (coarse levels then live on fewer ranks) and with
# the staged halo exchange.
# Usage: mg_checksums.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app mg "$@"; }

runs=()
run_matrix mg base "1 2 3 4" --class S --block-cells 8
run dataflow_no_replay_np3_t2 3 --class S --block-cells 8 --threads 2 --no-replay
run tiles16_np4 4 --class S --block-cells 16 --threads 2
run tiles4_np2 2 --class S --block-cells 4 --exec forkjoin --threads 2
runs+=(dataflow_no_replay_np3_t2 tiles16_np4 tiles4_np2)
# The staged halo exchange (NPB's comm3) moves the same ghost values in 6 messages per block.
run staged_bsp_np4 4 --class S --block-cells 8 --exec bsp --staged-halo
run staged_dataflow_np3_t2 3 --class S --block-cells 8 --threads 2 --staged-halo
run staged_forkjoin_np2_t2 2 --class S --block-cells 4 --exec forkjoin --threads 2 --staged-halo
runs+=(staged_bsp_np4 staged_dataflow_np3_t2 staged_forkjoin_np2_t2)

reference="$(field "$tmp/base_bsp_np1.json" rnm2_hex)"
for r in "${runs[@]}"; do
  [[ "$(field "$tmp/$r.json" verified)" == "True" ]] || fail "$r: class S not verified"
  [[ "$(field "$tmp/$r.json" class)" == "S" ]] || fail "$r: class is not S"
  got="$(field "$tmp/$r.json" rnm2_hex)"
  [[ "$got" == "$reference" ]] || fail "$r: rnm2 $got differs from bsp on 1 rank ($reference)"
  grep -q "Verification    =               SUCCESSFUL" "$tmp/$r.out" || fail "$r: no NPB report"
done
echo "mg_checksums: ${#runs[@]} runs, rnm2 $reference everywhere: PASS"
