#!/usr/bin/env bash
# The run that crashed after its report (poisson's sparse_np1 of app_poisson_checksums, an
# MPI singleton) 2000 times, two at a time, beside a stream of 2-rank mpirun jobs (the
# crashes came while other MPI jobs ran): every run exits 0 with its report. Before Session isolated singletons, about 1 run in 700 died with SIGSEGV
# while other MPI jobs ran (OpenMPI's PMIx client unloaded under a pending event; tests/apps/
# singleton_exit.sh has the deterministic check). Label "long": not in the default run.
# Usage: singleton_exit_many.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh" "$@"
export TESSERA_WAIT_POLICY=passive OMPI_MCA_pml=ob1 OMPI_MCA_mpi_yield_when_idle=1
runs="${TESSERA_SINGLETON_RUNS:-2000}"
stream() {
  local s="$1" failed=0 i
  for ((i = 0; i < runs / 2; ++i)); do
    rm -f "$tmp/r$s.json"
    if ! launch 1 "$bin/poisson" --exec bsp --tolerance 0 --cells 24 8 --block-cells 8 8 \
      --max-iterations 30 --sweeps-per-check 7 --quiet --report "$tmp/r$s.json" \
      >"$tmp/o$s.out" 2>&1 || [[ ! -s "$tmp/r$s.json" ]]; then
      echo "stream $s run $i failed:"
      cat "$tmp/o$s.out"
      failed=$((failed + 1))
    fi
  done
  echo "$failed" >"$tmp/failed$s"
}
# Other MPI jobs beside the singletons, until they are done.
beside() {
  while [[ ! -e "$tmp/done" ]]; do
    launch 2 "$bin/jacobi7" --quiet --blocks 4 3 2 --block-cells 6 5 4 --iters 20 \
      >"$tmp/beside.out" 2>&1 || true
  done
}
beside &
stream 0 &
s0=$!
stream 1 &
s1=$!
wait "$s0" "$s1"
touch "$tmp/done"
wait
failed=$(($(cat "$tmp/failed0") + $(cat "$tmp/failed1")))
[[ $failed -eq 0 ]] || fail "$failed of $runs singleton runs failed"
echo "singleton_exit_many: $runs runs exited 0 with their report: PASS"
