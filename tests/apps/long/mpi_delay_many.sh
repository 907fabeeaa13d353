#!/usr/bin/env bash
# The delayed-completion runs of tests/apps/mpi_delay.sh over 2000 further seeds (label
# "long": not part of the default test run).
# Usage: mpi_delay_many.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh" "$@"
source "$src/tests/support/delayed_runs.sh"
delayed_runs "${TESSERA_DELAY_RUNS:-2000}" 1001
echo "mpi_delay_many: PASS"
