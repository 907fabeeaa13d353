#!/usr/bin/env bash
# radhydro's radiation step (implicit exchange, implicit flux-limited diffusion by damped
# Jacobi): heating-cooling (HARD's settings, dt at most 0.25 s) within 1e-4 of the ODE's
# solution in T and E_r with total energy conserved to round-off; the gaussian pulse's
# heat kernel at second order in space; total energy on a periodic domain with exchange
# and diffusion conserved to round-off; the bits of a radiation run under every execution
# model on 1, 2, 4 ranks x 1, 2 threads, to tolerance and with fixed sweeps (and the
# radiation force, its work and -P:grad v in 3-D), and with multigrid; multigrid's V-cycles
# against Jacobi's sweeps on a stiff pulse; the radiative shock's jump states; a solve that cannot reach its tolerance stops
# every rank.
# Usage: radhydro_radiation.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app radhydro "$@"; }
# check NAME PYTHON-EXPRESSION MESSAGE: the expression over report r holds.
check() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
def drift(): return abs(r['totals_end']['energy'] - r['totals_start']['energy']) / r['totals_start']['energy']
ok = eval(sys.argv[2])
print(f'{sys.argv[3]}: {\"ok\" if ok else \"FAILED\"}: {sys.argv[2]} with l1_t={r.get(\"l1_t\")} l1_er={r.get(\"l1_er\")} drift={drift():.3g}')
sys.exit(0 if ok else 1)" "$tmp/$1.json" "$2" "$1" || fail "$1: $3"
}

run hc 1 --problem heating-cooling --cells 4 --block-cells 4 --max-dt 0.25
check hc "r['l1_t'] <= 1e-4 and r['l1_er'] <= 1e-4 and drift() <= 1e-14" \
  "heating-cooling: not within 1e-4 of the ODE or energy not conserved"

run pulse_128 2 --problem gaussian-pulse --cells 128 --block-cells 32
run pulse_256 2 --problem gaussian-pulse --cells 256 --block-cells 64
/usr/bin/python3 -c "
import json, math, sys
a, b = (json.load(open(f))['l1_er'] for f in sys.argv[1:])
print(f'gaussian-pulse: L1(E_r) {a:.4e} -> {b:.4e}, order {math.log2(a / b):.2f}')
sys.exit(0 if math.log2(a / b) >= 1.75 else 1)" "$tmp/pulse_128.json" "$tmp/pulse_256.json" ||
  fail "gaussian-pulse does not converge at second order"

# The pulse in 2-D, periodic, with the exchange on (the radiation heats the gas).
pulse2d=(--problem gaussian-pulse --dim 2 --cells 24 24 --boundary periodic --exchange on)
run pulse2d_conserve 1 "${pulse2d[@]}" --block-cells 24 24 --max-cycles 4
check pulse2d_conserve "drift() <= 1e-14 and r['rad_iterations'] > 0" \
  "gas + radiation energy not conserved on a periodic domain"

invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['totals_end_hex'], r['cycles'], r['t_hex'],
                  r['rad_iterations'], r['rad_residual']]))" "$1"
}
runs=()
run_matrix radhydro pulse2d "1 2 4" "${pulse2d[@]}" --block-cells 6 6 --max-cycles 4
expect_all_same pulse2d_bsp_np1 "${runs[@]}"
fixed=(--problem gaussian-pulse --dim 3 --cells 12 12 12 --exchange on --flux-limiter lp --radiation-force on
  --rad-sweeps 20 --max-cycles 4)
run fixed_bsp_np1 1 --exec bsp "${fixed[@]}" --block-cells 6 6 6
run fixed_df_np3 3 --exec dataflow --threads 2 "${fixed[@]}" --block-cells 6 3 6
run fixed_fj_np2 2 --exec forkjoin --threads 2 "${fixed[@]}" --block-cells 6 6 6
expect_all_same fixed_bsp_np1 fixed_df_np3 fixed_fj_np2
[[ "$(field "$tmp/fixed_bsp_np1.json" rad_iterations)" == 80 ]] || fail "--rad-sweeps 20: not 20 per cycle"
# The radiative shock (radiation force on by default), to tolerance, on two block shapes.
shock=(--problem rad-shock --dim 3 --cells 24 6 6 --max-cycles 5)
run shock_bsp_np1 1 --exec bsp "${shock[@]}" --block-cells 6 6 6
run shock_df_np3 3 --exec dataflow --threads 2 "${shock[@]}" --block-cells 12 3 6
expect_all_same shock_bsp_np1 shock_df_np3
# The jump conditions of the radiative shock: after five flow-throughs of the 1e5 cm box
# (t = 5e-4 s, dt from the CFL) the means over the outer fifths along the axis hold Moens
# et al.'s upstream and downstream rho, u, T within 1 % and E_r downstream within 1 %;
# upstream E_r (14 decades below downstream's) carries the radiative precursor: 10 %.
run jump 2 --problem rad-shock --cells 64 --block-cells 16 --max-dt 1 --t-end 5e-4
check jump "(all(r['jump'][s + '_rel_error'][q] <= 1e-2 for s in ('upstream', 'downstream')
    for q in ('rho', 'u', 'T')) and r['jump']['downstream_rel_error']['Er'] <= 1e-2
    and r['jump']['upstream_rel_error']['Er'] <= 0.1)" "rad-shock: jump states not Moens et al.'s"

# Multigrid: the same bits on every rank count, thread count and model (coarse levels with
# fewer blocks than ranks exchange between ranks) ...
runs=()
mg=("${pulse2d[@]}" --rad-solver mg --block-cells 6 6)
run mg_bsp_np1 1 --exec bsp "${mg[@]}" --max-cycles 4
run mg_df_np4 4 --exec dataflow --threads 2 "${mg[@]}" --max-cycles 4
run mg_fj_np3 3 --exec forkjoin --threads 2 "${mg[@]}" --max-cycles 4
expect_all_same mg_bsp_np1 mg_df_np4 mg_fj_np3
# A multigrid run checkpointed at cycle 2 on 1 rank and restarted on 3 gives the bits of
# the straight run (E_r lives in the checkpointed state).
restart_invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['totals_end_hex'], r['cycles'], r['t_hex'], r['rad_residual']]))" "$1"
}
run mg_first 1 "${mg[@]}" --max-cycles 2 --checkpoint-every 2 --checkpoint-dir "$tmp/ck"
run mg_restarted 3 --exec dataflow --threads 2 --restart latest --checkpoint-dir "$tmp/ck" \
  --max-cycles 4
expect_same mg_bsp_np1 mg_restarted restart_invariant
echo "ok: the restarted multigrid run has the straight run's bits"
# ... and on a stiff pulse (dt D / dx^2 ~ 2) it reaches the tolerance in at most 10 V-cycles
# per step where Jacobi takes over 5 times as many sweeps, with the same errors.
stiff=(--problem gaussian-pulse --dim 2 --cells 64 64 --block-cells 16 16 --kappa 8e6
  --t-end 5e-6)
run stiff_jacobi 2 "${stiff[@]}" --rad-solver jacobi
run stiff_mg 2 "${stiff[@]}" --rad-solver mg
/usr/bin/python3 -c "
import json, sys
j, m = (json.load(open(f)) for f in sys.argv[1:])
print(f'stiff pulse: jacobi {j[\"rad_iterations_per_cycle\"]:.1f} sweeps, mg {m[\"rad_iterations_per_cycle\"]:.1f} V-cycles per step; L1 {j[\"l1_er\"]:.6e} / {m[\"l1_er\"]:.6e}')
ok = m['rad_iterations_max'] <= 10 and j['rad_iterations_per_cycle'] >= 5 * m['rad_iterations_per_cycle']
ok = ok and abs(j['l1_er'] - m['l1_er']) <= 1e-6 * j['l1_er']
sys.exit(0 if ok else 1)" "$tmp/stiff_jacobi.json" "$tmp/stiff_mg.json" || fail "multigrid on the stiff pulse"

# A solve limited to 2 sweeps cannot reach 1e-12: every rank stops with status 3.
set +e
launch 2 "$bin/radhydro" --quiet --report "$tmp/stopped.json" "${pulse2d[@]}" --block-cells 12 12 \
  --rad-tolerance 1e-12 --rad-max-iterations 2 >"$tmp/stopped.out" 2>&1
rc=$?
set -e
[[ $rc == 3 ]] || { cat "$tmp/stopped.out"; fail "an unconverged solve exited $rc, not 3"; }
grep -q "error: cycle 1 .*residual .*--rad-tolerance 1e-12, within --rad-max-iterations 2" "$tmp/stopped.out" ||
  { cat "$tmp/stopped.out"; fail "no line naming the cycle and the residual reached"; }
[[ ! -e "$tmp/stopped.json" ]] || fail "the stopped run wrote a report"
echo "ok: $(grep -m1 error "$tmp/stopped.out")"
echo "radhydro_radiation: PASS"
