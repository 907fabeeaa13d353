#!/usr/bin/env bash
# Delayed and reordered completions change no bit: 100 seeded runs (seeds 1-100; 101-200 in
# mpi_delay_more.sh, so that ctest runs the two halves side by side) of jacobi7, euler,
# miniamr and mg on 2-4 ranks under the PMPI delay library (tests/support/mpi_delay.cpp)
# give the checksums of the apps' plain runs, lose no completion and never wake the hang
# watchdog. tests/apps/long/mpi_delay_many.sh runs thousands of seeds.
# Usage: mpi_delay.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
source "$src/tests/support/delayed_runs.sh"
delayed_runs 100 1
echo "mpi_delay: PASS"
