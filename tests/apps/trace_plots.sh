#!/usr/bin/env bash
# tools/timeline.py and tools/compare.py produce PNGs from real traces and reports,
# stack two traces with titles, and refuse bad arguments with a message.
# Usage: trace_plots.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$src/scripts/env.sh"
work="$tmp"
py=/usr/bin/python3

is_png() {
  [[ -s "$1" ]] && [[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]]
}
expect_failure() {  # expect_failure MESSAGE command...
  local message="$1"; shift
  if "$@" >"$work/out" 2>&1; then echo "FAIL: '$*' succeeded"; exit 1; fi
  grep -qF -- "$message" "$work/out" || { echo "FAIL: '$*' did not say '$message':"; cat "$work/out"; exit 1; }
}

TESSERA_OBS_TRACE_DIR="$work" mpirun -np 2 "$bin/mpi_tests" \
  --gtest_filter='TraceRecorder.RingProgram*' >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }

$py "$src/tools/timeline.py" "$work/ring_threads2_np2.json" -o "$work/one.png"
is_png "$work/one.png" || { echo "FAIL: timeline.py wrote no PNG"; exit 1; }
$py "$src/tools/timeline.py" "$work/ring_sequential_np2.json" "$work/ring_threads3_np2.json" \
  -o "$work/two.png" --titles sequential "3 threads"
is_png "$work/two.png" || { echo "FAIL: stacked timeline.py wrote no PNG"; exit 1; }
$py "$src/tools/timeline.py" "$work/ring_threads2_np2.json" -o "$work/zoom.png" --window 0 0.05
is_png "$work/zoom.png" || { echo "FAIL: windowed timeline.py wrote no PNG"; exit 1; }
expect_failure "--titles" $py "$src/tools/timeline.py" "$work/ring_threads2_np2.json" \
  -o "$work/x.png" --titles a b
expect_failure "cannot read trace" $py "$src/tools/timeline.py" "$work/missing.json" -o "$work/x.png"

for model in bsp dataflow; do
  cat >"$work/$model.json" <<JSON
{"app": "demo", "exec": "$model", "ranks": 2, "threads": 2, "wall_s": 1.25,
 "phases": {"halo": 0.5, "sweep": 0.75}, "overlap_fraction": 0.5}
JSON
done
$py "$src/tools/compare.py" "$work/bsp.json" "$work/dataflow.json" -o "$work/compare.png"
is_png "$work/compare.png" || { echo "FAIL: compare.py wrote no PNG"; exit 1; }
echo '{"checksum": "1"}' >"$work/not_report.json"
expect_failure "not a tessera run report" $py "$src/tools/compare.py" "$work/not_report.json" \
  -o "$work/x.png"
expect_failure "--labels" $py "$src/tools/compare.py" "$work/bsp.json" -o "$work/x.png" --labels a b
echo "ok: timeline.py and compare.py"
