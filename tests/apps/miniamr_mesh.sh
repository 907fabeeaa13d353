#!/usr/bin/env bash
# miniamr builds the same mesh as the reference miniAMR: for every case in
# tests/data/miniamr/*.txt (block counts printed by the reference, with the command that
# produced them), run miniamr on 1 and 2 ranks with --report_perf 8 and compare every
# "Number of blocks at level" / "Total number of blocks" line. Block counts depend only
# on the mesh and the objects, so the runs use tiny blocks and one variable to stay fast.
#
# Usage: miniamr_mesh.sh <build>/bin   (TESSERA_SOURCE_DIR = source tree)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
data="$src/tests/data/miniamr"
work="$tmp"

fast=(--nx 2 --ny 2 --nz 2 --num_vars 1 --stages_per_ts 1 --checksum_freq 0 --report_perf 8 --quiet)
failures=0
cases=0
for expected in "$data"/*.txt; do
  name=$(basename "$expected" .txt)
  read -r -a args <<<"$(sed -n 's/^# args: //p' "$expected")"
  grep -E '^(Number of blocks at level|Total number of blocks)' "$expected" >"$work/$name.expected"
  if [[ ! -s "$work/$name.expected" ]]; then
    echo "FAIL $name: no block counts in $expected"
    failures=$((failures + 1))
    continue
  fi
  for np in 1 2; do
    cases=$((cases + 1))
    if ! launch "$np" "$bin/miniamr" "${fast[@]}" "${args[@]}" \
      >"$work/$name.np$np.out" 2>&1; then
      echo "FAIL $name np$np: miniamr exited with an error:"
      tail -5 "$work/$name.np$np.out"
      failures=$((failures + 1))
      continue
    fi
    grep -E '^(Number of blocks at level|Total number of blocks)' "$work/$name.np$np.out" \
      >"$work/$name.np$np.counts" || true
    if diff -u "$work/$name.expected" "$work/$name.np$np.counts" >"$work/$name.np$np.diff"; then
      echo "ok   $name np$np ($(grep -c '^Total' "$work/$name.expected") refinement steps)"
    else
      echo "FAIL $name np$np: block counts differ from the reference"
      head -20 "$work/$name.np$np.diff"
      failures=$((failures + 1))
    fi
  done
done
if ((cases == 0)); then
  echo "FAIL: no cases found in $data"
  exit 1
fi
echo "$((cases - failures))/$cases runs match the reference block counts"
((failures == 0))
