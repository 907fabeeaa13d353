#!/usr/bin/env bash
# Bad balance options: every rank exits non-zero with one line naming the option and the
# allowed values, without hanging and without writing a report; apps whose blocks cannot
# move refuse a cost balance.
# Usage: balance_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

expect_error 2 jacobi7 --balance --balance weight
expect_error 1 jacobi7 --balance-after --balance cost --balance-after 0
expect_error 1 jacobi7 --balance-every --balance-every -2
expect_error 2 mg --balance --balance cost --class S
expect_error 1 poisson --balance --balance cost
expect_error 1 mg --balance --balance none --class S
expect_error 1 euler --balance --balance blocks
expect_error 2 euler --balance-gain --balance cost --balance-gain 1
expect_error 1 jacobi7 --balance-gain --balance-gain -0.1
echo "balance_errors: PASS"
