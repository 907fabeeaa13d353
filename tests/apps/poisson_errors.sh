#!/usr/bin/env bash
# Bad poisson options: each gives exactly one error line naming the option, a non-zero exit
# status on every rank (each rank's status is recorded separately), no hang, no report.
# Usage: poisson_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

# expect_error_on_every_rank TEXT ARGS... on $ranks ranks (lib.sh: error_on_every_rank)
ranks=2
expect_error_on_every_rank() { error_on_every_rank poisson "$@"; }

expect_error_on_every_rank --tolerance --tolerance -1e-6
expect_error_on_every_rank --tolerance --tolerance nan
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error_on_every_rank --modes --modes 0 2
expect_error_on_every_rank --modes --modes 12 0
expect_error_on_every_rank --modes --cells 64 64 --block-cells 16 16 --modes 64 2
expect_error_on_every_rank --modes --dim 3 --modes 12 2
expect_error_on_every_rank --modes --modes 1 2 3 4
expect_error_on_every_rank --block-cells --cells 64 64 --block-cells 24 16
expect_error_on_every_rank --block-cells --dim 3 --cells 32 32 30 --block-cells 16 16 16
expect_error_on_every_rank --block-cells --cells 64 64 --block-cells 0 16
expect_error_on_every_rank --block-cells --cells 64 64 --block-cells 128 16
expect_error_on_every_rank --cells --cells 1 64 --block-cells 1 16
expect_error_on_every_rank --cells --dim 2 --cells 64 64 64
expect_error_on_every_rank --dim --dim 4
expect_error_on_every_rank --solver --solver sor
expect_error_on_every_rank --iterations --max-iterations 0
expect_error_on_every_rank --sweeps-per-check --sweeps-per-check 0
expect_error_on_every_rank --history --history "$tmp/no/such/dir/history.csv"
expect_error_on_every_rank --levels --solver mg --cells 64 64 --block-cells 32 32 --levels 7
expect_error_on_every_rank --levels --solver mg --cells 64 64 --block-cells 16 16 --levels -1
expect_error_on_every_rank --levels --solver rbgs --levels 2
expect_error_on_every_rank --pre-sweeps --solver mg --pre-sweeps -1
expect_error_on_every_rank --post-sweeps --solver mg --post-sweeps -2
expect_error_on_every_rank --coarse-iterations --solver mg --coarse-iterations -1
expect_error_on_every_rank --exec --exec threads
echo "poisson_errors: PASS"
