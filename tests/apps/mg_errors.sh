#!/usr/bin/env bash
# Bad mg options: every rank exits non-zero with one line naming the option, without
# hanging and without writing a report.
# Usage: mg_errors.sh <build>/bin
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
  timeout 60 mpirun -np 2 --oversubscribe "$bin/mg" --report "$tmp/report.json" "$@" \
    >"$tmp/out" 2>&1
  local rc=$?
  [[ $rc -ne 124 ]] || fail "mg $* hung"
  [[ $rc -ne 0 ]] || fail "mg $* exited 0"
  [[ "$(grep -c -- "$option" "$tmp/out")" -eq 1 ]] ||
    { cat "$tmp/out"; fail "mg $*: not exactly one line naming $option"; }
  [[ ! -e "$tmp/report.json" ]] || fail "mg $* wrote a report"
  echo "ok: $* -> $(grep -m1 -- "$option" "$tmp/out")"
}

expect_error --class --class X
expect_error --class --class SS
expect_error --nx --nx 48
expect_error --nx --nx 0
expect_error --nx --nx 2
expect_error --nit --nit -4
expect_error --levels --nx 16 --levels 5
expect_error --levels --levels -1
expect_error --block-cells --block-cells 12
expect_error --block-cells --nx 16 --block-cells 32
expect_error --block-cells --block-cells 0
expect_error --exec --exec threads
echo "mg_errors: PASS"
