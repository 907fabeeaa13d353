#!/usr/bin/env bash
# euler --scheme dg (ADER-DG, docs/apps/euler.md): bitwise identical checksums, conserved
# integrals, time and errors under every execution model on 1, 2 and 4 ranks with 1 and 2
# threads (p = 3, 3-D density wave), with --priorities none and without the replayed cycle;
# the conserved integrals drift by <= 1e-13; a restart on another rank count ends with the
# uninterrupted run's bits; outflow and reflecting walls; the density error falls with
# order >= p + 0.7 between two meshes (p = 3, the same pair the unit tests measure); fv's
# density wave converges; bad input is refused naming the option.
# Usage: euler_dg.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app euler "$@"; }
invariant() { fields "$1" checksum totals_end time cycles l1_rho l2_rho; }
with_start() { fields "$1" totals_start dg_conserved_drift; }

wave3d=(--scheme dg --order 3 --problem density-wave --dim 3 --cells 4 4 4 --block-cells 2 2 2
  --max-cycles 3)
runs=()
run_matrix euler wave "1 2 4" "${wave3d[@]}"
run wave_priorities_none 2 --exec dataflow --threads 2 --priorities none "${wave3d[@]}"
run wave_no_replay 4 --exec dataflow --threads 2 --no-replay "${wave3d[@]}"
runs+=(wave_priorities_none wave_no_replay)
expect_all_same wave_bsp_np1 "${runs[@]}"

# A 2-D vortex over more cycles: conservation to round-off, and the same bits on 3 ranks.
vortex=(--scheme dg --order 4 --problem isentropic-vortex --dim 2 --cells 8 8 --block-cells 4 4
  --riemann hllc)
run vortex_np1 1 --exec bsp "${vortex[@]}" --max-cycles 20
run vortex_np3 3 --threads 2 "${vortex[@]}" --max-cycles 20
expect_same vortex_np1 vortex_np3
for r in wave_bsp_np1 vortex_np1; do
  drift=$(field "$tmp/$r.json" dg_conserved_drift)
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1e-13 else 1)" "$drift" ||
    fail "$r: the conserved integrals drift by $drift"
  echo "ok: $r conserves to $drift"
done

# Restart on another rank count: 2 ranks write at cycle 10, 3 ranks (2 threads) finish.
run vortex_first 2 "${vortex[@]}" --max-cycles 10 \
  --checkpoint-every 10 --checkpoint-dir "$tmp/ck"
run vortex_restarted 3 --threads 2 --restart latest --checkpoint-dir "$tmp/ck" --max-cycles 20
expect_same vortex_np1 vortex_restarted
expect_same vortex_np1 vortex_restarted with_start

echo "ok: the restart on 3 ranks ends with the uninterrupted run's bits"

# Walls (--boundary outflow | reflecting, the outer trace from the inner element's): a state
# at rest stays uniform to round-off (3-D); the density wave runs into reflecting walls (its
# compression would steepen into a shock later: a few cycles) and leaves through outflow
# faces with the same bits on 1 rank (bsp) and 3 ranks x 2 threads; reflecting walls keep
# mass and energy to round-off.
for bc in reflecting outflow; do
  run rest_$bc 2 --scheme dg --order 2 --problem uniform --dim 3 --cells 4 4 4 \
    --block-cells 2 2 2 --boundary $bc --max-cycles 5
  l2=$(field "$tmp/rest_$bc.json" l2_rho)
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1e-13 else 1)" "$l2" ||
    fail "rest_$bc: the state at rest changed, l2_rho $l2"
  echo "ok: rest_$bc stays uniform, l2_rho $l2"
  walls=(--scheme dg --order 3 --dim 2 --cells 8 8 --block-cells 4 4 --boundary $bc
    --max-cycles 8)
  run wall_${bc}_np1 1 --exec bsp "${walls[@]}"
  run wall_${bc}_np3 3 --threads 2 "${walls[@]}"
  expect_same wall_${bc}_np1 wall_${bc}_np3
done
/usr/bin/python3 - "$tmp/wall_reflecting_np1.json" <<'PY' || fail "reflecting walls: mass, energy"
import json, sys
r = json.load(open(sys.argv[1]))
s, e = r["totals_start"], r["totals_end"]
drift = max(abs(e[k] - s[k]) / abs(s[k]) for k in ("mass", "energy"))
print(f"ok: reflecting walls keep mass and energy to {drift:.1e}")
sys.exit(0 if drift <= 1e-13 else 1)
PY

# Convergence of the app: p = 3, 4 -> 8 elements per axis (2-D density wave, t = 0.1).
run conv_coarse 2 --scheme dg --order 3 --dim 2 --cells 4 4 --block-cells 2 2 --t-end 0.1
run conv_fine 2 --scheme dg --order 3 --dim 2 --cells 8 8 --block-cells 4 4 --t-end 0.1
/usr/bin/python3 - "$tmp/conv_coarse.json" "$tmp/conv_fine.json" <<'PY' || fail "convergence"
import json, math, sys
c, f = (json.load(open(p))["l2_rho"] for p in sys.argv[1:])
order = math.log2(c / f)
print(f"ok: p = 3 l2_rho {c:.3e} -> {f:.3e}, order {order:.2f}")
sys.exit(0 if order >= 3.7 else 1)
PY
# fv's density wave (bench/dg-accuracy's reference): l1_rho falls with order >= 1.8 from 32 to
# 64 cells per axis (2-D, t = 0.1), the same bits on 1 rank (bsp) and 2 ranks x 2 threads.
fvwave=(--problem density-wave --dim 2 --block-cells 16 16 --t-end 0.1)
run fvwave_coarse 1 --exec bsp "${fvwave[@]}" --cells 32 32
run fvwave_np2 2 --threads 2 "${fvwave[@]}" --cells 32 32
expect_same fvwave_coarse fvwave_np2
run fvwave_fine 2 "${fvwave[@]}" --cells 64 64
/usr/bin/python3 - "$tmp/fvwave_coarse.json" "$tmp/fvwave_fine.json" <<'PY' || fail "fv wave"
import json, math, sys
c, f = (json.load(open(p))["l1_rho"] for p in sys.argv[1:])
order = math.log2(c / f)
print(f"ok: fv density-wave l1_rho {c:.3e} -> {f:.3e}, order {order:.2f}")
sys.exit(0 if order >= 1.8 else 1)
PY

# The report's DG keys.
for key in scheme order dofs dof_updates_per_s flops_per_s l1_rho l2_rho; do
  [[ -n "$(field "$tmp/conv_fine.json" $key)" ]] || fail "the report lacks $key"
done
[[ "$(field "$tmp/conv_fine.json" dofs)" == "1024.0" ]] || fail "dofs: 64 elements x 16 nodes"

# Bad input: one line naming the option, exit != 0, no report (refused checks the exit code).
set +e
expect_error 2 euler --order --scheme dg --order 0
expect_error 2 euler --order --scheme dg --order 10
expect_error 1 euler --order --order 3
expect_error 1 euler --scheme --scheme fe
expect_error 2 euler --problem --scheme dg --problem sod
expect_error 1 euler --problem --scheme dg --problem smooth-blobs --dim 2
expect_error 1 euler --problem --scheme dg --problem isentropic-vortex --dim 3 --cells 8 8 8 \
  --block-cells 4 4 4
expect_error 1 euler --riemann --scheme dg --riemann hlle
expect_error 1 euler --boundary --scheme dg --boundary wall
expect_error 1 euler --max-level --scheme dg --max-level 11
expect_error 1 euler --refine-criterion --scheme dg --max-level 1 --refine-criterion pressure
expect_error 1 euler --derefine-below --scheme dg --max-level 1 --derefine-below 0.5
expect_error 1 euler --reconstruct --scheme dg --reconstruct pcm
expect_error 1 euler --history --scheme dg --history "$tmp/h.csv"
echo "euler_dg: PASS"
