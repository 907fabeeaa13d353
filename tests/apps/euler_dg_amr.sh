#!/usr/bin/env bash
# euler --scheme dg on the adaptive mesh (docs/apps/euler.md, "Adaptive DG"): a uniform state
# stays uniform to round-off across level jumps (free-stream preservation, 2-D and 3-D); the
# conserved integrals drift by <= 1e-13 on a periodic mesh with static level jumps, 2-D and
# 3-D (and by far more without the flux correction: see the commit) and with adaptation every
# cycle; the
# adaptive run gives the same bits under every execution model on 1, 2 and 4 ranks with 1 and
# 2 threads (p = 3); a restart on another rank count ends with the uninterrupted run's bits.
# Usage: euler_dg_amr.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app euler "$@"; }
invariant() { fields "$1" checksum totals_end time cycles l1_rho l2_rho blocks_by_level \
  blocks_split families_merged; }
with_start() { fields "$1" totals_start dg_conserved_drift; }
at_most() {  # at_most VALUE LIMIT WHAT
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" \
    "$1" "$2" || fail "$3: $1 > $2"
}

# Static level jumps: the blocks touching the central box are refined twice (levels 0, 1, 2
# side by side), on 3 ranks so that jumps cross ranks too.
centre=(--scheme dg --max-level 2 --refine-criterion centre)
run rest2d 3 "${centre[@]}" --order 3 --problem uniform --dim 2 --cells 8 8 --block-cells 2 2 \
  --max-cycles 5
run rest3d 2 "${centre[@]}" --order 2 --problem uniform --dim 3 --cells 4 4 4 \
  --block-cells 2 2 2 --max-cycles 3
for r in rest2d rest3d; do
  levels=$(field "$tmp/$r.json" blocks_by_level)
  /usr/bin/python3 -c "import sys; sys.exit(0 if sum(map(bool, eval(sys.argv[1]))) >= 2 else 1)" \
    "$levels" || fail "$r: no level jump: $levels"
  at_most "$(field "$tmp/$r.json" l2_rho)" 1e-13 "$r: the uniform state changed, l2_rho"
  echo "ok: $r stays uniform across level jumps ($levels)"
done
run vortex_jumps 3 --threads 2 "${centre[@]}" --order 3 --problem isentropic-vortex --dim 2 --cells 8 8 \
  --block-cells 2 2 --max-cycles 20
at_most "$(field "$tmp/vortex_jumps.json" dg_conserved_drift)" 1e-13 \
  "vortex_jumps: the conserved integrals drift"
echo "ok: vortex_jumps conserves to $(field "$tmp/vortex_jumps.json" dg_conserved_drift)"
# 3-D (faces are 2-D tensors: the fine faces' fluxes fill a coarse face's quarters): the
# density wave across a static jump conserves and gives the same bits on 1 and 3 ranks.
wave3d=(--scheme dg --refine-criterion centre --max-level 1 --order 2 --problem density-wave
  --dim 3 --cells 8 8 8 --block-cells 2 2 2 --max-cycles 4)
run wave3d_jumps_np1 1 --exec bsp "${wave3d[@]}"
run wave3d_jumps_np3 3 --threads 2 "${wave3d[@]}"
expect_same wave3d_jumps_np1 wave3d_jumps_np3
at_most "$(field "$tmp/wave3d_jumps_np1.json" dg_conserved_drift)" 1e-13 \
  "wave3d_jumps: the conserved integrals drift"
echo "ok: wave3d_jumps conserves to $(field "$tmp/wave3d_jumps_np1.json" dg_conserved_drift)"

# Adaptation every cycle (the modal indicator; thresholds that refine and coarsen blocks as
# the wave passes): conservation, then the bitwise matrix.
adaptive=(--scheme dg --order 3 --problem density-wave --dim 2 --cells 8 8 --block-cells 2 2
  --max-level 2 --adapt-every 1 --refine-above 3e-6 --derefine-below 1e-6)
runs=()
run_matrix euler adapt "1 2 4" "${adaptive[@]}" --max-cycles 6
run adapt_priorities_none 2 --exec dataflow --threads 2 --priorities none "${adaptive[@]}" \
  --max-cycles 6
runs+=(adapt_priorities_none)
expect_all_same adapt_bsp_np1 "${runs[@]}"
euler_conserved "$tmp/adapt_bsp_np1.json" 6 1

# Restart on another rank count: 2 ranks write at cycle 3, 3 ranks (2 threads) finish.
run adapt_first 2 "${adaptive[@]}" --max-cycles 3 --checkpoint-every 3 \
  --checkpoint-dir "$tmp/ck"
run adapt_restarted 3 --threads 2 --restart latest --checkpoint-dir "$tmp/ck" --max-cycles 6
expect_same adapt_bsp_np1 adapt_restarted
expect_same adapt_bsp_np1 adapt_restarted with_start
echo "ok: the adaptive restart on 3 ranks ends with the uninterrupted run's bits"

set +e
expect_error 1 euler --refine-criterion --scheme dg --max-level 1 --refine-criterion centre \
  --checkpoint-every 2 --checkpoint-dir "$tmp/ck2"
echo "euler_dg_amr: PASS"
