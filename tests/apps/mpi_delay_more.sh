#!/usr/bin/env bash
# The second half of the seeded runs of mpi_delay.sh (seeds 101-200), as its own test so
# that ctest runs the two halves side by side: delayed and reordered completions change no
# bit of jacobi7, euler, miniamr and mg on 2-4 ranks.
# Usage: mpi_delay_more.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$src/tests/support/delayed_runs.sh"
delayed_runs 100 101
echo "mpi_delay_more: PASS"
