#!/usr/bin/env bash
# Real traces through tools/check_trace.py: the obs MPI test's ring program (sends,
# receives, reductions, an exact allreduce) traced under bsp-like sequential, 1, 2 and
# 3 threads on 2 and 4 ranks, every trace validated by the checker.
# Usage: trace_ring.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$src/scripts/env.sh"
work="$tmp"

for np in 2 4; do
  TESSERA_OBS_TRACE_DIR="$work" mpirun -np "$np" --oversubscribe "$bin/mpi_tests" \
    --gtest_filter='TraceRecorder.RingProgram*' >"$work/np$np.log" 2>&1 ||
    { cat "$work/np$np.log"; echo "FAIL: traced ring program on $np ranks"; exit 1; }
done
count=0
for trace in "$work"/ring_*.json; do
  /usr/bin/python3 "$src/tools/check_trace.py" "$trace"
  count=$((count + 1))
done
if ((count != 8)); then
  echo "FAIL: expected 8 traces (4 models x 2 rank counts), found $count"
  exit 1
fi
