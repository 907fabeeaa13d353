#!/usr/bin/env bash
# miniamr's user-facing behaviour: bad options are rejected up front with one line naming
# the option (exit 2 on every rank); a failed checksum validation and an outgrown
# --max_blocks stop the run with a clear message (exit 1); --plot_freq writes the driver's
# plot files (HDF5 + XDMF) that tools/plot_mesh.py turns into a PNG.
#
# Usage: miniamr_options.sh <build>/bin
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
work="$tmp"
failures=0
small=(--ny 2 --nz 2 --num_vars 1 --stages_per_ts 1 --quiet)

expect() { # expect <exit code> <text in output> <ranks> <args...>
  local code=$1 text=$2 np=$3
  shift 3
  launch "$np" "$bin/miniamr" "$@" >"$work/out" 2>&1
  local got=$?
  if [[ $got -ne $code ]] || ! grep -qF -- "$text" "$work/out"; then
    echo "FAIL miniamr $*: exit $got (expected $code), output:"
    tail -5 "$work/out"
    failures=$((failures + 1))
  else
    echo "ok   exit $code, '$text': $*"
  fi
}

small+=(--nx 2)
expect 2 "--nx: must be even" 2 --nx 3 --ny 2 --nz 2
expect 2 "--stencil: must be 7 or 27" 1 "${small[@]}" --stencil 5
expect 2 "--refine_freq: must be >= 1" 2 "${small[@]}" --refine_freq 0
expect 2 "--report_perf: must be in 0..15" 1 "${small[@]}" --report_perf 16
expect 2 "--report_perf: At Most 1 required but received 2" 1 "${small[@]}" --report_perf 0 \
  --report_perf 8
small+=(--num_tsteps 2 --report_perf 0)
expect 2 "--num_refine: must be in 0..18" 1 "${small[@]}" --num_refine 19
expect 2 "--object: --num_objects is 2 but 1 --object option(s) were given" 2 "${small[@]}" \
  --num_objects 2 --object 2 0 0.5 0.5 0.5 0 0 0 0.1 0.1 0.1 0 0 0
expect 2 "type must be 0..15 or 20..25, got 17" 1 "${small[@]}" \
  --num_objects 1 --object 17 0 0.5 0.5 0.5 0 0 0 0.1 0.1 0.1 0 0 0
expect 2 "bounce must be 0, 1 or 2" 1 "${small[@]}" \
  --num_objects 1 --object 2 3 0.5 0.5 0.5 0 0 0 0.1 0.1 0.1 0 0 0
expect 2 "--object" 1 "${small[@]}" --num_objects 1 --object 2 0 0.5
expect 2 "--max_blocks: must be at least" 1 "${small[@]}" --init_x 2 --init_y 2 --max_blocks 3
expect 0 "--nx" 1 --help

# The 27-point stencil does not keep the sum across level jumps: with a tight tolerance the
# delayed validation catches it and stops the run.
expect 1 "difference too large" 2 --nx 4 --ny 4 --nz 4 --num_vars 1 --stages_per_ts 2 \
  --checksum_freq 1 --num_tsteps 4 --init_x 2 --init_y 2 --init_z 2 --num_refine 2 \
  --num_objects 1 --object 2 0 0.5 0.5 0.5 0 0 0 0.3 0.3 0.3 0 0 0 --stencil 27 --error_tol 12 \
  --report_perf 0 --quiet
expect 1 "ERROR: Need more blocks" 1 "${small[@]}" --init_x 2 --init_y 2 --init_z 2 --num_refine 3 \
  --max_blocks 20 --num_objects 1 --object 2 0 0.5 0.5 0.5 0 0 0 0.3 0.3 0.3 0 0 0

# Plots: HDF5 + XDMF files at timestep 0 and every --plot_freq timesteps, with every block's
# level and rank and the variables (their total is the run's: the stencil keeps the sum),
# rendered by tools/plot_mesh.py.
(cd "$work" && mpirun -np 2 --oversubscribe "$bin/miniamr" --nx 2 --ny 2 --nz 2 --quiet --num_tsteps 4 \
  --init_x 2 --init_y 2 --init_z 2 --num_refine 2 --refine_freq 2 --plot_freq 2 --num_vars 2 \
  --num_objects 1 --object 2 0 0.5 0.5 0.5 0 0 0 0.3 0.3 0.3 0 0 0 >plot.out 2>&1)
if ! PYTHONPATH="$src/tools" /usr/bin/python3 - "$work" <<'PY'; then
import math, os, sys
import plot_file
work = sys.argv[1]
want = sorted([f"miniamr_mesh_{s:06d}.{e}" for s in (0, 2, 4) for e in ("h5", "xmf")] + ["miniamr_mesh.xdmf"])
have = sorted(n for n in os.listdir(work) if n.startswith("miniamr_mesh"))
assert have == want, f"plot files {have}, expected {want}"
sums = []
for s in (0, 2, 4):
    pf = plot_file.PlotFile(f"{work}/miniamr_mesh_{s:06d}.h5")
    assert pf.fields == ["var0", "var1"], pf.fields
    assert set(pf.ranks) == {0, 1} and max(pf.levels) == 2, (set(pf.ranks), max(pf.levels))
    sums.append(math.fsum(pf.array("var0").ravel().tolist()))
# miniAMR's cell values are amounts: the 7-point stencil and the level jumps keep their sum.
assert all(abs(x - sums[0]) <= 1e-9 * abs(sums[0]) for x in sums), sums
PY
  echo "FAIL --plot_freq: plot files missing or wrong"
  failures=$((failures + 1))
fi
if /usr/bin/python3 "$src/tools/plot_mesh.py" "$work/miniamr_mesh_000002.h5" -o "$work/mesh.png" \
  >/dev/null && [[ "$(head -c 8 "$work/mesh.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]]; then
  echo "ok   plot_mesh.py wrote a PNG"
else
  echo "FAIL plot_mesh.py did not write a PNG"
  failures=$((failures + 1))
fi

((failures == 0)) && echo "all option checks passed"
((failures == 0))
