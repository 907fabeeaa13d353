#!/usr/bin/env bash
# radhydro gives bitwise identical results (checksum, totals, cycles, time, errors) under
# every execution model on 1, 2 and 4 ranks with 1 and 2 threads, for every block size, and
# a run restarted from a checkpoint on another rank count gives the uninterrupted run's bits;
# periodic runs conserve mass, momentum and energy to round-off.
# Usage: radhydro_checksums.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app radhydro "$@"; }
invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['totals_end_hex'], r['cycles'], r['t_hex'],
                  r.get('l1_rho'), r.get('l1_p')]))" "$1"
}

# sedov in 2-D: a multi-dimensional flow, reflecting and flow faces, 16 blocks.
sedov2d=(--problem sedov --dim 2 --cells 24 24 --t-end 0.2)
runs=()
run_matrix radhydro sedov2d "1 2 4" "${sedov2d[@]}" --block-cells 6 6 --max-cycles 12
expect_all_same sedov2d_bsp_np1 "${runs[@]}"
run sedov2d_blocks 2 --exec dataflow --threads 2 "${sedov2d[@]}" --block-cells 12 3 --max-cycles 12
expect_same sedov2d_bsp_np1 sedov2d_blocks
# dataflow submits the stages every cycle by default; recording them once and replaying them
# gives the same bits.
run sedov2d_replay 2 --exec dataflow --threads 2 --replay "${sedov2d[@]}" --block-cells 6 6 \
  --max-cycles 12
expect_same sedov2d_bsp_np1 sedov2d_replay

# 3-D: sedov, and a shock tube along z with periodic x and reflecting y.
sedov3d=(--problem sedov --dim 3 --cells 12 12 12 --max-cycles 6)
run sedov3d_bsp_np1 1 --exec bsp "${sedov3d[@]}" --block-cells 6 6 6
run sedov3d_df_np3 3 --exec dataflow --threads 2 "${sedov3d[@]}" --block-cells 4 6 3
run sedov3d_fj_np2 2 --exec forkjoin --threads 2 "${sedov3d[@]}" --block-cells 6 6 6
expect_all_same sedov3d_bsp_np1 sedov3d_df_np3 sedov3d_fj_np2
tube=(--problem leblanc --dim 3 --cells 6 6 48 --axis z --boundary periodic periodic reflecting
  reflecting flow flow --max-cycles 15)
run tube_bsp_np1 1 --exec bsp "${tube[@]}" --block-cells 3 6 12
run tube_df_np4 4 --exec dataflow --threads 2 "${tube[@]}" --block-cells 3 3 12
expect_all_same tube_bsp_np1 tube_df_np4

# Restart: 12 cycles straight against 6 + 6 with a checkpoint at cycle 6, written on 2
# ranks and read on 1 and 3.
ck="$tmp/ck"
run first 2 "${sedov2d[@]}" --block-cells 6 6 --max-cycles 6 --checkpoint-every 6 \
  --checkpoint-dir "$ck"
[[ -d "$ck/step-6" ]] || fail "no checkpoint step-6 in $(ls "$ck")"
run restart_np1 1 --exec bsp --restart "$ck/step-6" --max-cycles 12
run restart_np3 3 --exec dataflow --threads 2 --restart latest --checkpoint-dir "$ck" \
  --max-cycles 12
expect_all_same sedov2d_bsp_np1 restart_np1 restart_np3
[[ "$(fields "$tmp/restart_np3.json" totals_start)" == "$(fields "$tmp/sedov2d_bsp_np1.json" totals_start)" ]] ||
  fail "the restarted run's start totals differ"
# Conservation on periodic domains: mass, momentum and energy totals of a sedov blast in
# 2-D and 3-D drift by at most 1e-14 of the mass or energy (round-off of the flux sums).
run periodic2d 2 --problem sedov --dim 2 --cells 24 24 --block-cells 6 6 --boundary periodic \
  --t-end 0.2 --max-cycles 30
run periodic3d 2 --problem sedov --dim 3 --cells 12 12 12 --block-cells 6 6 6 --boundary periodic \
  --t-end 0.2 --max-cycles 12
for r in periodic2d periodic3d; do
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
a, b = r['totals_start'], r['totals_end']
drift = [abs(b['mass'] - a['mass']) / a['mass'], abs(b['energy'] - a['energy']) / a['energy']]
drift += [abs(y - x) / a['mass'] for x, y in zip(a['momentum'], b['momentum'])]
print(f'{sys.argv[2]}: {r[\"cycles\"]} cycles, drifts {[f\"{d:.2g}\" for d in drift]}')
sys.exit(0 if max(drift) <= 1e-14 and r['cycles'] >= 10 else 1)" "$tmp/$r.json" "$r" ||
    fail "$r: totals not conserved"
done
echo "radhydro_checksums: PASS"
