#!/usr/bin/env bash
# The PMPI delay library keeps MPI's contract (tests/programs/delay_check.cpp): on 2 ranks,
# with holds of up to 4 and 32 polls, every completion MPI_Test/Testany/Testsome/Testall,
# MPI_Wait and MPI_Iprobe report is real and reported once, none is lost, and some are
# reported out of posting order. Without the library the same program fails (messages from
# one peer complete in order), so the check cannot pass with the library not loaded.
# Usage: mpi_delay_check.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
library="$bin/libtessera_mpi_delay.so"
[[ -f "$library" ]] || fail "$library is missing (built with the tests)"
for hold in 4 32; do
  for seed in 1 2 3; do
    out="$tmp/check_${hold}_$seed.out"
    timeout -k 10 120 mpirun -np 2 --oversubscribe --bind-to none -x LD_PRELOAD="$library" \
      -x TESSERA_MPI_DELAY_SEED="$seed" -x TESSERA_MPI_DELAY_MAX="$hold" \
      -x TESSERA_MPI_DELAY_VERBOSE=1 "$bin/delay_check" >"$out" 2>&1 ||
      { cat "$out"; fail "delay_check with holds up to $hold, seed $seed"; }
    grep -q "^delay_check: rank 1: 384 messages, [1-9][0-9]* out of order$" "$out" ||
      { cat "$out"; fail "delay_check printed no result"; }
    grep -q "^mpi_delay: rank 1: seed $seed max $hold: .* 0 left unreported$" "$out" ||
      { cat "$out"; fail "the library's summary is missing"; }
  done
done
# Without the library one peer's messages are reported in order: the check fails.
timeout -k 10 120 mpirun -np 2 --oversubscribe --bind-to none "$bin/delay_check" >"$tmp/plain.out" 2>&1 &&
  { cat "$tmp/plain.out"; fail "delay_check passed without the library"; }
grep -q "FAIL: no message was reported out of posting order" "$tmp/plain.out" ||
  { cat "$tmp/plain.out"; fail "delay_check without the library failed for another reason"; }
echo "mpi_delay_check: PASS"
