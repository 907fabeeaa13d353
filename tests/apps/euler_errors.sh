#!/usr/bin/env bash
# Bad euler options: every rank exits non-zero with one line naming the option, without
# hanging and without writing a report; a run that produces a negative pressure stops with
# an error naming the cycle, the block and the cell.
# Usage: euler_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

# expect_error TEXT-IN-MESSAGE ARGS... (on $ranks ranks)
ranks=2
expect_error() {
  local text="$1"
  shift
  refused "$ranks" euler "$@"
  grep -q -- "$text" "$tmp/out" || { cat "$tmp/out"; fail "euler $*: no message naming $text"; }
  echo "ok: $* -> $(grep -m1 -- "$text" "$tmp/out")"
}

expect_error --problem --problem shocktube
expect_error --problem --problem kh --dim 3 --cells 8 8 8 --block-cells 4 4 4
expect_error --dim --dim 4
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error --cells --dim 2 --cells 64 64 64
expect_error --cells --dim 2 --cells 60 8 --block-cells 16 8
expect_error --block-cells --dim 2 --cells 64 8 --block-cells 3 8
expect_error --block-cells --dim 2 --cells 64 8 --block-cells 16 0
expect_error --gamma --gamma 1
expect_error --gamma --gamma 0.5
expect_error --cfl --cfl 0
expect_error --cfl --cfl 1
expect_error --t-end --t-end -1
expect_error --max-cycles --max-cycles -3
expect_error --max-level --max-level -1
expect_error --max-level --max-level 11
expect_error --block-cells --dim 2 --cells 64 8 --block-cells 2 8 --max-level 1
expect_error --block-cells --dim 3 --cells 16 16 16 --block-cells 2 2 2 --max-level 1
expect_error --refine-above --refine-above 0
expect_error --derefine-below --derefine-below 0.9
expect_error --adapt-every --adapt-every 0
expect_error --reconstruct --reconstruct ppm
expect_error --riemann --riemann roe
expect_error --axis --axis z --dim 2
expect_error --boundary --boundary open
expect_error --output-every --output-every -1
expect_error --max-comm-tasks --max-comm-tasks -2
expect_error --exec --exec threads
ranks=2
expect_error "cycle 29" --problem blast --dim 2 --cells 32 32 --block-cells 16 16 --cfl 0.99 \
  --blast-pressure-ratio 1e6
grep -q "cell (" "$tmp/out" || fail "the negative-pressure error names no cell"
grep -q "lower corner" "$tmp/out" || fail "the negative-pressure error names no block"
echo "euler_errors: PASS"
