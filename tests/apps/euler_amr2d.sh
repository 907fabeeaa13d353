#!/usr/bin/env bash
# euler with adaptive refinement in 2-D (p4est quadtrees): a periodic blast that splits and
# merges blocks over two levels and a periodic Kelvin-Helmholtz run conserve mass, momentum
# and energy to 1e-13 relative and stay 2:1 face balanced after every adaptation (the app
# checks it each time); checksums, conserved totals and time are bitwise identical for
# bsp / forkjoin / dataflow on 1, 2, 4 ranks with 1 and 2 threads; Sod along x and along y
# with one refined level matches the uniform mesh of its finest cells; an adaptive restart
# on another rank count gives the straight run's bits; the plot file holds every block at
# its true size with its level, and tools/plot_euler.py draws it; adaptation
# beyond --max-blocks-per-rank stops the run naming the option.
# Usage: euler_amr2d.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app euler "$@"; }
invariant() { fields "$1" checksum conserved_hex time cycles blocks_by_level; }

# A periodic blast over two levels whose front crosses blocks: they split and merge.
blast=(--problem blast --dim 2 --cells 16 16 --block-cells 4 4 --max-level 2 --adapt-every 1
  --refine-above 0.5 --derefine-below 0.45 --blast-radius 0.2)
kh=(--problem kh --dim 2 --cells 32 32 --block-cells 8 8 --max-level 2 --adapt-every 2
  --refine-above 0.1 --derefine-below 0.05)

run blast_conserve 2 --exec dataflow --threads 1 "${blast[@]}" --max-cycles 30 \
  --history "$tmp/blast_conserve.csv"
euler_conserved "$tmp/blast_conserve.json" 5 1 "$tmp/blast_conserve.csv"
run kh_conserve 2 --exec dataflow --threads 1 "${kh[@]}" --max-cycles 40
euler_conserved "$tmp/kh_conserve.json" 1 0
echo "ok: periodic 2-D blast and kh with adaptation conserve mass, momentum and energy; 2:1 balanced"

# Bitwise matrix: every model on 1, 2 and 4 ranks, 2 threads on each rank count; the
# 2-thread runs split each block's stage into tasks, the others run it fused.
runs=()
matrix() {
  local np="$1" model="$2" threads="$3" stage=()
  [[ $threads -eq 1 ]] || stage=(--stage-tasks split)
  run "${model}_np${np}_t${threads}" "$np" --exec "$model" --threads "$threads" "${stage[@]}" \
    "${blast[@]}" --max-cycles 16
  runs+=("${model}_np${np}_t${threads}")
}
matrix 1 bsp 1
matrix 2 bsp 1
matrix 4 bsp 1
matrix 1 forkjoin 2
matrix 2 forkjoin 1
matrix 4 forkjoin 2
matrix 1 dataflow 2
matrix 2 dataflow 2
matrix 4 dataflow 1
matrix 4 dataflow 2
run no_replay 2 --exec dataflow --threads 2 --no-replay --stage-tasks split "${blast[@]}" --max-cycles 16
runs+=(no_replay)
[[ "$(field "$tmp/bsp_np1_t1.json" adaptations)" -ge 5 ]] || fail "the matrix input adapts fewer than 5 times"
expect_all_same bsp_np1_t1 "${runs[@]}"
run kh_bsp 1 --exec bsp "${kh[@]}" --max-cycles 10
run kh_dataflow 4 --exec dataflow --threads 2 "${kh[@]}" --max-cycles 10
expect_all_same kh_bsp kh_dataflow

# Sod with one refined level along x and along y against the uniform mesh of its finest
# cells (measured at commit time: 4.04e-3 adaptive, 4.07e-3 uniform 128, 7.61e-3 uniform 64).
sod=(--problem sod --dim 2 --block-cells 8 8)
adapt=(--max-level 1 --adapt-every 2 --refine-above 0.05 --derefine-below 0.01)
run sod_64 2 "${sod[@]}" --cells 64 8
run sod_128 2 "${sod[@]}" --cells 128 16
run sod_x 2 "${sod[@]}" --cells 64 8 "${adapt[@]}"
run sod_y 2 "${sod[@]}" --axis y --cells 8 64 "${adapt[@]}"
/usr/bin/python3 - "$tmp"/sod_{64,128,x,y}.json <<'PY' || fail "2-D sod with refinement"
import json, sys
e = [json.load(open(f))["sod_l1_density_error"] for f in sys.argv[1:]]
print(f"  L1: uniform 64 {e[0]:.4g}, uniform 128 {e[1]:.4g}, 64 + 1 level along x {e[2]:.4g}, along y {e[3]:.4g}")
ok = e[2] < 1.1 * e[1] and e[2] < 0.6 * e[0] and abs(e[3] - e[2]) <= 1e-12 * e[2]
sys.exit(0 if ok else 1)
PY
echo "ok: 2-D sod along x and y with one refined level matches the uniform finest mesh"

# Restart: the forest is rebuilt from the stored 2-D leaves on another rank count.
run straight 2 "${blast[@]}" --max-cycles 16 --history "$tmp/straight.csv"
run first 2 "${blast[@]}" --max-cycles 8 --checkpoint-every 8 --checkpoint-dir "$tmp/ck" \
  --history "$tmp/first.csv"
run restarted 3 --restart latest --checkpoint-dir "$tmp/ck" --max-cycles 16 --threads 2 \
  --history "$tmp/restarted.csv"
expect_same straight restarted
cmp -s "$tmp/restarted.csv" "$tmp/straight.csv" || fail "the restarted history differs"
echo "ok: an adaptive 2-D restart on 3 ranks gives the straight run's bits"

# Plot files: every block at its level's size, levels as the report counts them
# (tests/apps/output_euler.sh checks the files in full).
run plot 2 "${blast[@]}" --max-cycles 10 --output-every 10 --output-dir "$tmp/plot"
/usr/bin/python3 - "$src/tools" "$tmp/plot/euler_000010.h5" "$tmp/plot.json" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import plot_file
out = plot_file.PlotFile(sys.argv[2])
r = json.load(open(sys.argv[3]))
by_level = np.bincount(out.levels).tolist()
area = float((out.spacings[:, 0] * out.spacings[:, 1]).sum() * 16)
print(f"  {out.block_count} blocks, area {area!r}, blocks by level {by_level} (report "
      f"{r['blocks_by_level']})")
ok = all(np.array_equal(out.spacings[:, a], 1.0 / 16 / 2.0 ** out.levels) for a in (0, 1))
ok = ok and abs(area - 1.0) < 1e-12 and by_level == r["blocks_by_level"] and by_level[2] > 0
sys.exit(0 if ok else 1)
PY
  fail "the plot file"
/usr/bin/python3 "$src/tools/plot_euler.py" "$tmp/plot/euler_000010.h5" -o "$tmp/plot.png" \
  >/dev/null || fail "tools/plot_euler.py failed"
[[ -s "$tmp/plot.png" ]] || fail "tools/plot_euler.py wrote no PNG"
echo "ok: plot file blocks at their true size on every level; plot_euler.py draws them"

# Adaptation beyond the block slots the memory check counted stops the run, naming the option.
set +e
launch 2 "$bin/euler" --quiet "${blast[@]}" --max-cycles 10 --max-blocks-per-rank 30 \
  >"$tmp/cap.out" 2>"$tmp/cap.err"
code=$?
set -e
[[ $code -ne 0 && $code -ne 124 ]] || fail "a run over --max-blocks-per-rank exited $code"
grep -q "^euler: error: --max-blocks-per-rank: adaptation" "$tmp/cap.err" ||
  { cat "$tmp/cap.err"; fail "no error line naming --max-blocks-per-rank"; }
echo "ok: adaptation beyond --max-blocks-per-rank stops the run"
echo "euler_amr2d: PASS"
