#!/usr/bin/env bash
# The hang watchdog under the PMPI delay library (tests/support/mpi_delay.cpp): holds of up
# to 64 polls per completion do not wake a 2 s watchdog, and a receive that never completes
# (TESSERA_MPI_DELAY_NEVER) does: every rank reports the hang, rank 0's report names that
# receive among its requests in flight, and the run exits non-zero before the outer timeout.
# Usage: mpi_delay_watchdog.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
library="$bin/libtessera_mpi_delay.so"
[[ -f "$library" ]] || fail "$library is missing (built with the tests)"
input=(--blocks 4 3 2 --block-cells 6 5 4 --iters 20 --check-every 7 --intranode mpi)

# Small delays: the run completes, delayed, with the watchdog armed.
out="$tmp/delayed.out"
timeout -k 10 60 mpirun -np 2 --oversubscribe --bind-to none -x LD_PRELOAD="$library" \
  -x TESSERA_MPI_DELAY_SEED=3 -x TESSERA_MPI_DELAY_MAX=64 -x TESSERA_MPI_DELAY_VERBOSE=1 \
  "$bin/jacobi7" --quiet --hang-timeout 2 "${input[@]}" >"$out" 2>&1 ||
  { cat "$out"; fail "delayed run exited non-zero"; }
[[ $(grep -c "^mpi_delay: rank [01]: .* [1-9][0-9]* held for .* 0 left unreported$" "$out") == 2 ]] ||
  { cat "$out"; fail "delayed run: the library did not hold completions on both ranks"; }
! grep -q "hang detected" "$out" || { cat "$out"; fail "the watchdog fired on small delays"; }

# A message that never arrives: rank 0's third receive from rank 1. The job is torn down 2 s
# after the first rank reports (Session's hang handler); on a heavily loaded machine the
# other rank's report can be cut by then, so a run whose reports are incomplete is repeated
# (up to 3 runs); a run that exits 0 or hangs fails at once.
never_run() {
  local out="$tmp/never.out" rc tag r
  timeout -k 10 60 mpirun -np 2 --oversubscribe --bind-to none -x LD_PRELOAD="$library" \
    -x TESSERA_MPI_DELAY_SEED=3 -x TESSERA_MPI_DELAY_MAX=4 -x TESSERA_MPI_DELAY_NEVER=0:1:3 \
    "$bin/jacobi7" --quiet --hang-timeout 1 "${input[@]}" >"$out" 2>&1
  rc=$?
  [[ $rc -ne 0 ]] || { cat "$out"; fail "run without its message exited 0"; }
  [[ $rc -ne 124 ]] || { cat "$out"; fail "run without its message hung until the outer timeout"; }
  tag=$(sed -n 's/^mpi_delay: rank 0: receive 3 from rank 1 tag \([0-9]*\) never completes$/\1/p' "$out")
  [[ -n "$tag" ]] || { cat "$out"; fail "the library did not withhold rank 0's third receive"; }
  for r in 0 1; do
    grep -q "^jacobi7: rank $r: hang detected" "$out" || { echo "rank $r did not report"; return 1; }
  done
  # Rank 0's report lists the withheld receive as in flight.
  sed -n '/^jacobi7: rank 0: hang detected/,/^jacobi7: rank 1: hang detected/p' "$out" |
    grep -q "^  recv 'halo.recv' peer 1 tag $tag bytes [0-9]* age " ||
    { echo "rank 0's hang report does not name the receive from rank 1 tag $tag"; return 1; }
}
for attempt in 1 2 3; do
  never_run && break
  ((attempt < 3)) || { cat "$tmp/never.out"; fail "no complete hang report in 3 runs"; }
  echo "run $attempt: incomplete hang reports (the job was torn down first); again"
done
echo "mpi_delay_watchdog: PASS"
