#!/usr/bin/env bash
# Bad jacobi7 options: every rank exits with status 2 and one line naming the option,
# without hanging and without writing a report.
# Usage: jacobi7_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

ranks=2

expect_error "$ranks" jacobi7 --blocks --blocks 0 2 2
expect_error "$ranks" jacobi7 --blocks --blocks 2 2
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error "$ranks" jacobi7 --block-cells --block-cells 4 -1 4
expect_error "$ranks" jacobi7 --block-cells --blocks 1 1 1 --block-cells 1 8 8
# A compatibility spelling is reported under the option's own name.
expect_error "$ranks" jacobi7 --iterations --iters -3
expect_error "$ranks" jacobi7 --iterations --iterations -3
expect_error "$ranks" jacobi7 --check-every --check-every -1
expect_error "$ranks" jacobi7 --max-comm-tasks --max-comm-tasks -2
expect_error "$ranks" jacobi7 --work --work everything
expect_error "$ranks" jacobi7 --fused-packing --fused-packing some
expect_error "$ranks" jacobi7 --exec --exec threads
expect_error "$ranks" jacobi7 --threads --exec bsp --threads 2
TESSERA_WAIT_POLICY=busy expect_error "$ranks" jacobi7 TESSERA_WAIT_POLICY
echo "jacobi7_errors: PASS"
