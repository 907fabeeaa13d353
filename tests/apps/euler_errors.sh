#!/usr/bin/env bash
# Bad euler options: every rank exits non-zero with one line naming the option, without
# hanging and without writing a report; a run that produces a negative pressure stops with
# an error naming the cycle, the block and the cell.
# Usage: euler_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

ranks=2

expect_error "$ranks" euler --problem --problem shocktube
expect_error "$ranks" euler --problem --problem kh --dim 3 --cells 8 8 8 --block-cells 4 4 4
expect_error "$ranks" euler --dim --dim 4
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error "$ranks" euler --cells --dim 2 --cells 64 64 64
expect_error "$ranks" euler --cells --dim 2 --cells 60 8 --block-cells 16 8
expect_error "$ranks" euler --block-cells --dim 2 --cells 64 8 --block-cells 3 8
expect_error "$ranks" euler --block-cells --dim 2 --cells 64 8 --block-cells 16 0
expect_error "$ranks" euler --gamma --gamma 1
expect_error "$ranks" euler --gamma --gamma 0.5
expect_error "$ranks" euler --cfl --cfl 0
expect_error "$ranks" euler --cfl --cfl 1
expect_error "$ranks" euler --t-end --t-end -1
expect_error "$ranks" euler --max-cycles --max-cycles -3
expect_error "$ranks" euler --max-level --max-level -1
expect_error "$ranks" euler --max-level --max-level 11
expect_error "$ranks" euler --block-cells --dim 2 --cells 64 8 --block-cells 2 8 --max-level 1
expect_error "$ranks" euler --block-cells --dim 3 --cells 16 16 16 --block-cells 2 2 2 --max-level 1
expect_error "$ranks" euler --refine-above --refine-above 0
expect_error "$ranks" euler --derefine-below --derefine-below 0.9
expect_error "$ranks" euler --adapt-every --adapt-every 0
expect_error "$ranks" euler --reconstruct --reconstruct ppm
expect_error "$ranks" euler --riemann --riemann roe
expect_error "$ranks" euler --axis --axis z --dim 2
expect_error "$ranks" euler --boundary --boundary open
expect_error "$ranks" euler --output-every --output-every -1
expect_error "$ranks" euler --max-comm-tasks --max-comm-tasks -2
expect_error "$ranks" euler --exec --exec threads
ranks=2
expect_error "$ranks" euler "cycle 29" --problem blast --dim 2 --cells 32 32 --block-cells 16 16 --cfl 0.99 \
  --blast-pressure-ratio 1e6
grep -q "cell (" "$tmp/out" || fail "the negative-pressure error names no cell"
grep -q "lower corner" "$tmp/out" || fail "the negative-pressure error names no block"
echo "euler_errors: PASS"
