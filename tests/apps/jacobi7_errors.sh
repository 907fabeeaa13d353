#!/usr/bin/env bash
# Bad jacobi7 options: every rank exits with status 2 and one line naming the option,
# without hanging and without writing a report.
# Usage: jacobi7_errors.sh <build>/bin
set -uo pipefail
bin="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $*"; exit 1; }

# expect_error NAME-IN-MESSAGE ARGS...
expect_error() {
  local option="$1"
  shift
  timeout 60 mpirun -np 2 --oversubscribe "$bin/jacobi7" --report "$tmp/report.json" "$@" \
    >"$tmp/out" 2>&1
  local rc=$?
  [[ $rc -ne 124 ]] || fail "jacobi7 $* hung"
  [[ $rc -ne 0 ]] || fail "jacobi7 $* exited 0"
  grep -q -- "$option" "$tmp/out" || { cat "$tmp/out"; fail "jacobi7 $*: no message naming $option"; }
  [[ ! -e "$tmp/report.json" ]] || fail "jacobi7 $* wrote a report"
  echo "ok: $* -> $(grep -m1 -- "$option" "$tmp/out")"
}

expect_error --blocks --blocks 0 2 2
expect_error --blocks --blocks 2 2
expect_error --block-cells --block-cells 4 -1 4
expect_error --block-cells --blocks 1 1 1 --block-cells 1 8 8
expect_error --iters --iters -3
expect_error --check-every --check-every -1
expect_error --max-comm-tasks --max-comm-tasks -2
expect_error --work --work everything
expect_error --exec --exec threads
expect_error --threads --exec bsp --threads 2
echo "jacobi7_errors: PASS"
