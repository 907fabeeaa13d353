#!/usr/bin/env bash
# Bad mg options: every rank exits non-zero with one line naming the option, without
# hanging and without writing a report.
# Usage: mg_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

# expect_error NAME-IN-MESSAGE ARGS... (on $ranks ranks)
ranks=2
expect_error() {
  local option="$1"
  shift
  refused "$ranks" mg "$@"
  [[ "$(grep -c -- "$option" "$tmp/out")" -eq 1 ]] ||
    { cat "$tmp/out"; fail "mg $*: not exactly one line naming $option"; }
  echo "ok: $* -> $(grep -m1 -- "$option" "$tmp/out")"
}

expect_error --class --class X
expect_error --class --class SS
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error --nx --nx 48
expect_error --nx --nx 0
expect_error --nx --nx 2
# NPB's spelling is reported under the option's own name.
expect_error --iterations --nit -4
expect_error --levels --nx 16 --levels 5
expect_error --levels --levels -1
expect_error --block-cells --block-cells 12
expect_error --block-cells --nx 16 --block-cells 32
expect_error --block-cells --block-cells 0
expect_error --exec --exec threads
echo "mg_errors: PASS"
