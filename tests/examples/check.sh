#!/usr/bin/env bash
# Runs one program of the examples ladder and checks its output: the results the program
# prints are right, and the checksums are the same bits for every rank count, thread count
# and execution model the program supports.
# Usage: check.sh NAME <build>/bin/examples
set -euo pipefail
name="$1"
bin="$2"
tools="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tools" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail() { echo "FAIL: $name: $*"; exit 1; }

# run NP ARGS...: runs the example on NP ranks, output in $tmp/out; prints the output.
run() {
  local np="$1"
  shift
  timeout -k 10 120 mpirun -np "$np" --oversubscribe --bind-to none "$bin/$name" --quiet \
    --hang-timeout 30 "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$* on $np rank(s) exited non-zero"; }
  cat "$tmp/out"
}
checksum() { sed -n 's/.*, checksum \([0-9a-f]\{16\}\)$/\1/p' "$tmp/out"; }

# matrix NPS -- ARGS...: runs the example under bsp (1 thread) and forkjoin and dataflow
# (1 and 2 threads) on each rank count in NPS; every checksum must equal the first one.
matrix() {
  local nps=() reference="" got
  while [[ "$1" != -- ]]; do nps+=("$1"); shift; done
  shift
  for np in "${nps[@]}"; do
    for config in "bsp 1" "forkjoin 1" "forkjoin 2" "dataflow 1" "dataflow 2"; do
      read -r model threads <<<"$config"
      run "$np" --exec "$model" --threads "$threads" "$@" >/dev/null
      got="$(checksum)"
      [[ -n "$got" ]] || { cat "$tmp/out"; fail "no checksum ($model, $threads threads, $np ranks)"; }
      reference="${reference:-$got}"
      [[ "$got" == "$reference" ]] ||
        fail "checksum $got under $model, $threads thread(s), $np rank(s); $reference before"
    done
  done
  echo "$name: checksum $reference on ${nps[*]} rank(s) under every model and thread count"
}

# close A B TOLERANCE: |A - B| <= TOLERANCE * |B|.
close() { /usr/bin/python3 -c "import sys; a,b,t=map(float,sys.argv[1:]); sys.exit(abs(a-b)>t*abs(b))" "$@"; }

case "$name" in
  01_tasks)
    out="$("$bin/$name")"
    echo "$out"
    # sum of i and of i^2 for i = 0..999, and the reset that had to wait for both readers
    grep -qx "01_tasks: sum of squares 332833500" <<<"$out" || fail "wrong sum of squares"
    grep -qx "01_tasks: sum 499500, a\[999\] after reset 0, 5 tasks" <<<"$out" || fail "wrong sum"
    ;;
  02_reduction)
    matrix 1 2 4 -- --terms 200000 --tasks 7
    run 3 --terms 200000 --tasks 7
    value="$(sed -n 's/.* is \([0-9.]*\) (bits.*/\1/p' "$tmp/out")"
    # sum_{k<=N} 1/k^2 = pi^2/6 - 1/N + O(1/N^2)
    close "$value" "$(/usr/bin/python3 -c 'import math; print(math.pi**2/6 - 1/200000)')" 1e-10 ||
      fail "sum $value is not pi^2/6 - 1/N"
    ;;
  03_heat1d)
    matrix 1 2 4 -- --cells 200 --steps 400 --chunk 16
    # Uneven chunks and a rank count that does not divide the cells give the same bits.
    reference="$(checksum)"
    run 3 --cells 200 --steps 400 --chunk 7 --exec dataflow --threads 2 >/dev/null
    [[ "$(checksum)" == "$reference" ]] || fail "3 ranks with 7-cell chunks: checksum differs"
    heat="$(sed -n 's/.*: heat \([0-9.]*\), exact solution \([0-9.]*\)$/\1 \2/p' "$tmp/out")"
    read -r got exact <<<"$heat"
    close "$got" "$exact" 5e-3 || fail "heat $got far from the exact solution's $exact"
    echo "$name: heat $got, exact solution $exact"
    ;;
  04_replay)
    matrix 1 -- --iterations 300
    grep -q "submitted, .* replayed, identical$" "$tmp/out" || fail "replay differs from submission"
    ;;
  05_block_mesh)
    matrix 1 2 4 -- --blocks 4 --block-cells 8 --steps 40
    # A different block split of the same cells gives the same bits.
    reference="$(checksum)"
    run 2 --blocks 8 --block-cells 4 --steps 40 --exec dataflow --threads 2 >/dev/null
    [[ "$(checksum)" == "$reference" ]] || fail "8 x 8 blocks of 4 x 4 cells: checksum differs"
    ;;
  06_advection_amr)
    bin="$(cd "$bin" && pwd)"
    cd "$tmp"  # plot files and checkpoints go to the working directory
    matrix 1 2 4 --
    reference="$(checksum)"
    # Conservation: the flux correction at coarse-fine faces keeps the total to round-off.
    read -r start end < <(sed -n 's/.*; total \([0-9.e+-]*\) -> \([0-9.e+-]*\)$/\1 \2/p' "$tmp/out")
    [[ -n "$start" ]] || fail "no total line"
    close "$end" "$start" 1e-13 || fail "total $start at the start, $end at the end"
    # Position: the centre of mass moved with the wind, to a quarter of the finest cell.
    read -r x y ex ey < <(sed -n 's/.*centre of mass \([0-9.]*\) \([0-9.]*\), exact \([0-9.]*\) \([0-9.]*\)$/\1 \2 \3 \4/p' "$tmp/out")
    [[ -n "$ex" ]] || fail "no centre-of-mass line"
    /usr/bin/python3 -c "import sys; x,y,ex,ey=map(float,sys.argv[1:]); sys.exit(max(abs(x-ex),abs(y-ey))>0.25/128)" \
      "$x" "$y" "$ex" "$ey" || fail "centre of mass ($x, $y), the exact translation ($ex, $ey)"
    echo "$name: total $start -> $end, centre of mass ($x, $y) against ($ex, $ey)"
    # Checkpoints and plots for free: a run stopped at cycle 36 and restarted on another rank
    # count ends with the same bits; the plot files exist.
    run 2 --checkpoint-every 36 --output-every 36 --output-dir plots >/dev/null
    [[ -d checkpoints/step-36 && -s plots/06_advection_amr_000036.h5 && -s plots/06_advection_amr.xdmf ]] ||
      fail "no checkpoint or plot file"
    # The plot file holds the field q on every leaf cell: its integral is the run's total.
    /usr/bin/python3 - plots/06_advection_amr_000036.h5 "$start" "$tools" <<'PY' || fail "the plot file's total"
import sys
sys.path.insert(0, sys.argv[3])
import plot_file
total = plot_file.PlotFile(sys.argv[1]).integral("q")
print(f"  plot file at cycle 36: integral of q {total!r}, run's total {sys.argv[2]}")
sys.exit(0 if abs(total - float(sys.argv[2])) <= 1e-12 * abs(float(sys.argv[2])) else 1)
PY
    run 3 --restart checkpoints/step-36 --exec dataflow --threads 2 >/dev/null
    [[ "$(checksum)" == "$reference" ]] || fail "restarted on 3 ranks: checksum $(checksum), $reference straight"
    echo "$name: restart from cycle 36 on 3 ranks gives the same bits"
    # Every cycle's total in the --history CSV equals the first to round-off.
    run 2 --history history.csv --exec dataflow --threads 2 >/dev/null
    /usr/bin/python3 - history.csv <<'PY' || fail "the history's totals drift"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
q = [float(r["q0"]) for r in rows]
assert len(rows) == 73 and rows[-1]["t"] == "0.29999999999999999", (len(rows), rows[-1])
assert max(abs(v - q[0]) for v in q) <= 1e-13 * q[0], q
PY
    echo "$name: the total of every history row equals the first to round-off"
    ;;
  *) fail "no check for this example" ;;
esac
echo "$name: passed"
