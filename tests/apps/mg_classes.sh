#!/usr/bin/env bash
# mg classes S and W verify against NPB's published norms (the NPB report block says
# SUCCESSFUL, the JSON report says verified); a size that is no class runs as class U,
# unverified, and exits 0.
# Usage: mg_classes.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

check_class() {
  local class="$1" np="$2"
  shift 2
  timeout -k 10 300 mpirun -np "$np" --oversubscribe --bind-to none "$bin/mg" --class "$class" \
    --report "$tmp/$class.json" "$@" >"$tmp/$class.out" 2>&1 ||
    { cat "$tmp/$class.out"; fail "class $class exited non-zero"; }
  grep -q " VERIFICATION SUCCESSFUL" "$tmp/$class.out" || { cat "$tmp/$class.out"; fail "class $class"; }
  [[ "$(field "$tmp/$class.json" verified)" == "True" ]] || fail "class $class: report not verified"
  echo "ok: class $class: rnm2 $(field "$tmp/$class.json" rnm2), error $(field "$tmp/$class.json" relative_error)"
}
check_class S 1
check_class W 2 --threads 2

timeout -k 10 60 mpirun -np 2 --oversubscribe "$bin/mg" --nx 16 --nit 3 --report "$tmp/u.json" \
  >"$tmp/u.out" 2>&1 || { cat "$tmp/u.out"; fail "class U exited non-zero"; }
grep -q "NO VERIFICATION PERFORMED" "$tmp/u.out" || fail "class U: no 'NO VERIFICATION PERFORMED'"
[[ "$(field "$tmp/u.json" class)" == "U" ]] || fail "--nx 16 --nit 3 is not class U"
timeout -k 10 60 mpirun -np 2 --oversubscribe "$bin/mg" --class S --levels 3 --report "$tmp/l.json" \
  >"$tmp/l.out" 2>&1 || { cat "$tmp/l.out"; fail "--levels 3 exited non-zero"; }
[[ "$(field "$tmp/l.json" class)" == "U" ]] || fail "class S with --levels 3 is not class U"
echo "mg_classes: PASS"
