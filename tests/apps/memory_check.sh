#!/usr/bin/env bash
# Inputs too big for this machine are refused before any large allocation: every rank exits
# non-zero within seconds (most of it mpirun's start-up), with one line naming the options
# and the bytes needed and available per rank, and no report is written. With
# --no-memory-check the allocation fails instead, and the error names the real rank, the
# field and the phase (never "rank -1").
# Usage: memory_check.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# refused APP OPTIONS-IN-MESSAGE ARGS...: the run fails fast with the one-line verdict.
refused() {
  local app="$1" options="$2"
  shift 2
  local start=$SECONDS
  timeout -k 10 30 mpirun -np 2 --oversubscribe "$bin/$app" --report "$tmp/report.json" "$@" \
    >"$tmp/out" 2>&1
  local rc=$? took=$((SECONDS - start))
  [[ $rc -ne 124 ]] || fail "$app $* hung"
  [[ $rc -ne 0 ]] || fail "$app $* exited 0"
  local line
  line="$(grep -E "^$app: error: $options: needs [0-9.]+ [kMGTPE]?B per rank, [0-9.]+ [kMGTPE]?B available per rank on this node" "$tmp/out")" ||
    { cat "$tmp/out"; fail "$app $*: no one-line memory verdict naming $options"; }
  [[ $(grep -c "error:" "$tmp/out") -eq 1 ]] || { cat "$tmp/out"; fail "$app $*: more than one error line"; }
  [[ $took -le 10 ]] || fail "$app $*: took $took s to refuse"
  [[ ! -e "$tmp/report.json" ]] || fail "$app $* wrote a report"
  echo "ok (${took} s): $app $* -> ${line:0:120}..."
}

# The typo-sized mesh of issue 28 (2^30 blocks of 64^3 cells), and 4096^3-cell blocks.
refused jacobi7 --blocks/--block-cells --blocks 1024 1024 1024 --block-cells 64 64 64 --iters 1
refused jacobi7 --blocks/--block-cells --blocks 2 2 2 --block-cells 4096 4096 4096 --iters 1
refused jacobi7 --blocks/--block-cells --blocks 2097152 2097152 2097152 --block-cells 1 1 1
refused miniamr --max_blocks/--num_refine/--num_vars/--nx/--ny/--nz --nx 1024 --ny 1024 --nz 1024
refused miniamr --max_blocks/--num_refine/--num_vars/--nx/--ny/--nz --max_blocks 100000000 \
  --npx 2 --uniform_refine 1 --num_refine 9
refused taskbench -width/-output/-scratch -steps 5 -width 100000000 -type stencil_1d
refused taskbench -width/-output/-scratch -steps 5 -width 1000000 -type all_to_all
refused taskbench -width/-output/-scratch -steps 5 -width 64 -kernel memory_bound \
  -scratch 100000000000
# The multigrid apps count every level; euler its root mesh (and refinement, below).
refused mg --class/--nx/--levels/--block-cells --nx 4096
refused mg --class/--nx/--levels/--block-cells --nx 1048576 --nit 1
refused poisson --cells/--block-cells/--levels --dim 3 --cells 16384 16384 16384 \
  --block-cells 64 64 64
refused poisson --cells/--block-cells/--levels --solver mg --cells 65536 65536 \
  --block-cells 64 64
refused euler --cells/--block-cells --dim 3 --cells 65536 65536 65536 --block-cells 64 64 64
# euler with refinement counts the block slots adaptation may use (8 x 64^3 root blocks here).
refused euler --cells/--block-cells/--max-level/--max-blocks-per-rank --dim 3 \
  --cells 1024 1024 1024 --block-cells 16 16 16 --max-level 3

# Small inputs still run.
timeout -k 10 60 mpirun -np 2 "$bin/jacobi7" --quiet --blocks 4 4 4 --block-cells 8 8 8 --iters 2 \
  >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a small jacobi7 run failed"; }

# Past the check, an allocation failure names the rank, the field and the phase.
timeout -k 10 60 mpirun -np 2 "$bin/jacobi7" --no-memory-check --blocks 2 2 2 \
  --block-cells 4096 4096 4096 >"$tmp/out" 2>&1
rc=$?
[[ $rc -ne 124 ]] || fail "jacobi7 --no-memory-check hung"
[[ $rc -ne 0 ]] || fail "jacobi7 --no-memory-check with 6.6 TB per rank exited 0"
grep -qE "^jacobi7: rank [01]: error: out of memory while allocating field '[uvf]' \([0-9]+ bytes\) during setup$" "$tmp/out" ||
  { cat "$tmp/out"; fail "the allocation failure does not name rank, field and phase"; }
! grep -q "rank -1" "$tmp/out" || fail "an error was reported as rank -1"
echo "ok: $(grep -m1 'out of memory' "$tmp/out")"
echo "memory_check: PASS"
