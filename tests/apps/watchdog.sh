#!/usr/bin/env bash
# A program that never sends must not hang: every rank reports what it waits for
# (task, handle, request peer/tag) and the run exits non-zero.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
out="$tmp/out"
timeout -k 10 60 mpirun -np 2 --oversubscribe "$bin/never_sends" --hang-timeout 1 >"$out" 2>&1
rc=$?
cat "$out"
[[ $rc -ne 0 ]] || fail "run exited 0"
[[ $rc -ne 124 ]] || fail "run hung until the outer timeout"
for r in 0 1; do
  grep -q "never_sends: rank $r: hang detected" "$out" || fail "rank $r did not report"
done
grep -q "recv 'halo-recv' peer" "$out" || fail "request not described"
grep -q "task 'unpack' #[0-9]* tags\[3,1\] waits to read handle 'never-filled-buffer'" "$out" ||
  fail "waiting task not described"
echo "watchdog: PASS"
