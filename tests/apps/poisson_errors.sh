#!/usr/bin/env bash
# Bad poisson options: each gives exactly one error line naming the option, a non-zero exit
# status on every rank (each rank's status is recorded separately), no hang, no report.
# Usage: poisson_errors.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
launch_timeout=60

# Each rank runs poisson and appends its own exit status to $tmp/status; the wrapper then
# exits 0 so that mpirun neither aborts the other rank nor adds its own messages.
cat >"$tmp/rank.sh" <<'SH'
#!/usr/bin/env bash
status_file="$1"
shift
"$@"
echo "rank ${OMPI_COMM_WORLD_RANK:-?} status $?" >>"$status_file"
exit 0
SH

# expect_error_on_every_rank OPTION ARGS... (on $ranks ranks)
ranks=2
expect_error_on_every_rank() {
  local option="$1"
  shift
  rm -f "$tmp/status" "$tmp/report.json"
  launch "$ranks" bash "$tmp/rank.sh" "$tmp/status" "$bin/poisson" \
    --report "$tmp/report.json" "$@" >"$tmp/out" 2>&1
  local rc=$?
  [[ $rc -ne 124 ]] || fail "poisson $* hung"
  local lines
  lines="$(grep -c . "$tmp/out")"
  [[ "$lines" == 1 ]] || { cat "$tmp/out"; fail "poisson $*: $lines output lines, expected one"; }
  grep -q -- "error: .*$option" "$tmp/out" || { cat "$tmp/out"; fail "poisson $*: no error naming $option"; }
  [[ "$(grep -c 'status [1-9]' "$tmp/status")" == "$ranks" ]] ||
    { cat "$tmp/status"; fail "poisson $*: not every rank exited non-zero"; }
  [[ ! -e "$tmp/report.json" ]] || fail "poisson $* wrote a report"
  echo "ok: $* -> $(cat "$tmp/out")"
}

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
