#!/usr/bin/env bash
# Bad mg options: every rank exits non-zero with one line naming the option, without
# hanging and without writing a report.
# Usage: mg_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

ranks=2

expect_error "$ranks" mg --class --class X
expect_error "$ranks" mg --class --class SS
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error "$ranks" mg --nx --nx 48
expect_error "$ranks" mg --nx --nx 0
expect_error "$ranks" mg --nx --nx 2
# NPB's spelling is reported under the option's own name.
expect_error "$ranks" mg --iterations --nit -4
expect_error "$ranks" mg --levels --nx 16 --levels 5
expect_error "$ranks" mg --levels --levels -1
expect_error "$ranks" mg --block-cells --block-cells 12
expect_error "$ranks" mg --block-cells --nx 16 --block-cells 32
expect_error "$ranks" mg --block-cells --block-cells 0
expect_error "$ranks" mg --exec --exec threads
echo "mg_errors: PASS"
