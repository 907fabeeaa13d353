#!/usr/bin/env bash
# Threads bound to fewer cores than they need: one warning on rank 0 naming the mpirun
# options that fix it; none when the binding leaves every thread a core.
# Usage: core_binding.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
unset OMPI_MCA_rmaps_base_oversubscribe  # mpirun's own defaults for the bindings below
# run "MPIRUN OPTIONS" THREADS
run() {
  # shellcheck disable=SC2086
  timeout -k 10 120 mpirun $1 "$bin/jacobi7" --threads "$2" --blocks 2 2 2 --block-cells 8 8 8 \
    --iters 2 --quiet >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "mpirun $1 failed"; }
}

if (($(nproc) < 2)); then
  echo "SKIP: one core online: every 2-thread run shares it, so no binding can be checked"
  exit 77
fi
# One rank bound to one core, two threads: the trap.
run "-np 1 --bind-to core" 2
[[ $(grep -c 'warning: .*share a core.*--bind-to none' "$tmp/out") == 1 ]] ||
  { cat "$tmp/out"; fail "no single binding warning for 1 rank x 2 threads bound to a core"; }
echo "ok: $(grep warning "$tmp/out")"
# The same with the fix, and one thread per rank bound to a core each: no warning.
run "-np 1 --bind-to none" 2
! grep -q warning "$tmp/out" || { cat "$tmp/out"; fail "warning despite --bind-to none"; }
run "-np 2 --bind-to core" 1
! grep -q warning "$tmp/out" || { cat "$tmp/out"; fail "warning for 2 ranks x 1 thread"; }
echo "ok: no warning when every thread has a core"
