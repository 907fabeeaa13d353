#!/usr/bin/env bash
# A run without mpirun exits 0 after its report. OpenMPI 4.1's singleton forks a daemon and
# loads its PMIx client, whose MPI_Finalize unloads that client before stopping the
# progress thread that may still hold one of its events: on a loaded machine such runs
# died with SIGSEGV after writing their report (app_poisson_checksums' sparse_np1). Session
# makes a singleton isolated (no daemon, no PMIx client); this checks that deterministically
# (tests/programs/singleton_exit.cpp lists the PMIx objects a singleton loaded), that the
# check sees the client when isolation is turned off, and that the run that crashed exits
# 0 with its report. tests/apps/long/singleton_exit_many.sh repeats that run 2000 times.
# Usage: singleton_exit.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

launch 1 "$bin/singleton_exit" --quiet >"$tmp/isolated.out" 2>&1 ||
  { cat "$tmp/isolated.out"; fail "a singleton loaded OpenMPI's PMIx client (or failed)"; }
grep -q "^singleton_exit: 1 rank(s), 0 PMIx client object(s) loaded$" "$tmp/isolated.out" ||
  { cat "$tmp/isolated.out"; fail "singleton_exit printed no result"; }
# The user's own setting stays, and with a daemon the client is there: the check can fail.
OMPI_MCA_ess_singleton_isolated=0 launch 1 "$bin/singleton_exit" --quiet >"$tmp/daemon.out" 2>&1 &&
  { cat "$tmp/daemon.out"; fail "singleton_exit found no PMIx client with a daemon"; }
grep -q "^singleton_exit: loaded .*pmix" "$tmp/daemon.out" ||
  { cat "$tmp/daemon.out"; fail "singleton_exit with a daemon failed for another reason"; }

for i in $(seq 10); do
  rm -f "$tmp/sparse.json"
  launch 1 "$bin/poisson" --exec bsp --tolerance 0 --cells 24 8 --block-cells 8 8 \
    --max-iterations 30 --sweeps-per-check 7 --quiet --report "$tmp/sparse.json" \
    >"$tmp/sparse.out" 2>&1 || { cat "$tmp/sparse.out"; fail "run $i exited non-zero"; }
  [[ -s "$tmp/sparse.json" ]] || fail "run $i wrote no report"
done
echo "singleton_exit: PASS"
