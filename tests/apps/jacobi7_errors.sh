#!/usr/bin/env bash
# Bad jacobi7 options: every rank exits with status 2 and one line naming the option,
# without hanging and without writing a report.
# Usage: jacobi7_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

# expect_error NAME-IN-MESSAGE ARGS... (on $ranks ranks)
ranks=2
expect_error() {
  local option="$1"
  shift
  refused "$ranks" jacobi7 "$@"
  grep -q -- "$option" "$tmp/out" || { cat "$tmp/out"; fail "jacobi7 $*: no message naming $option"; }
  echo "ok: $* -> $(grep -m1 -- "$option" "$tmp/out")"
}

expect_error --blocks --blocks 0 2 2
expect_error --blocks --blocks 2 2
# One rank from here on: every rank runs the same check (this keeps the test short).
ranks=1
expect_error --block-cells --block-cells 4 -1 4
expect_error --block-cells --blocks 1 1 1 --block-cells 1 8 8
# A compatibility spelling is reported under the option's own name.
expect_error --iterations --iters -3
expect_error --iterations --iterations -3
expect_error --check-every --check-every -1
expect_error --max-comm-tasks --max-comm-tasks -2
expect_error --work --work everything
expect_error --fused-packing --fused-packing some
expect_error --exec --exec threads
expect_error --threads --exec bsp --threads 2
TESSERA_WAIT_POLICY=busy expect_error TESSERA_WAIT_POLICY
echo "jacobi7_errors: PASS"
