#!/usr/bin/env bash
# radhydro's --coupling imex (IMEX-SSP2(2,2,2)): second order in time where --coupling split
# is first order (heating-cooling at two time steps against the ODE's solution, energy
# conserved to round-off; a pulse driving the gas by the radiation force at three steps);
# marshak at tau = 1 no less accurate than split's; the same bits under every execution
# model on 1, 2, 4 ranks x 1, 2 threads (a 2-D radiative shock: hydro, radiation force,
# exchange and diffusion), with fixed sweeps in 3-D, with multigrid on 1 and 3 ranks, and a
# run restarted on 3 ranks from a 1-rank checkpoint.
# Usage: radhydro_imex.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app radhydro "$@"; }

# Temporal order: heating-cooling (uniform: no spatial error) at dt 0.5 s and 0.25 s.
for c in split imex; do
  for dt in 0.5 0.25; do
    run "hc_${c}_${dt}" 1 --problem heating-cooling --cells 4 --block-cells 4 --max-dt "$dt" \
      --coupling "$c"
  done
done
/usr/bin/python3 -c "
import json, math, sys
d = sys.argv[1]
def r(c, dt): return json.load(open(f'{d}/hc_{c}_{dt}.json'))
ok = True
for c, lo, hi in (('split', 0.7, 1.4), ('imex', 1.8, 2.2)):
    a, b = r(c, '0.5'), r(c, '0.25')
    order = math.log2(a['l1_t'] / b['l1_t'])
    drift = abs(b['totals_end']['energy'] - b['totals_start']['energy']) / b['totals_start']['energy']
    print(f'heating-cooling {c}: L1(T) {a[\"l1_t\"]:.3e} -> {b[\"l1_t\"]:.3e}, order {order:.2f}, energy drift {drift:.2g}')
    ok = ok and lo <= order <= hi and drift <= 1e-14 and b['l1_t'] <= 1e-4
ok = ok and r('imex', '0.5')['l1_t'] < r('split', '0.25')['l1_t']
sys.exit(0 if ok else 1)" "$tmp" || fail "heating-cooling: imex not second order or split not first"

# Temporal order with hydro and radiation coupled: a 1-D pulse (kappa 8e6: dt D / dx^2 ~ 1
# at dt 4e-8) pushing the gas by the radiation force, at dt 4e-8, 2e-8, 1e-8 (solves to
# 1e-14); the order from the differences between successive E_r profiles.
pulse=(--problem gaussian-pulse --cells 64 --block-cells 32 --kappa 8e6 --t-end 5e-6
  --radiation-force on --rad-tolerance 1e-14)
for c in split imex; do
  for dt in 4e-8 2e-8 1e-8; do
    run "pulse_${c}_${dt}" 1 "${pulse[@]}" --max-dt "$dt" --coupling "$c" \
      --lineout "$tmp/pulse_${c}_${dt}.csv"
  done
done
/usr/bin/python3 -c "
import csv, math, sys
d = sys.argv[1]
def er(c, dt): return [float(r['Er']) for r in csv.DictReader(open(f'{d}/pulse_{c}_{dt}.csv'))]
def diff(a, b): return sum(abs(x - y) for x, y in zip(a, b)) / len(a)
ok = True
for c, lo, hi in (('split', 0.7, 1.4), ('imex', 1.8, 2.3)):
    u1, u2, u3 = er(c, '4e-8'), er(c, '2e-8'), er(c, '1e-8')
    e1, e2 = diff(u1, u2), diff(u2, u3)
    order = math.log2(e1 / e2)
    print(f'pulse with radiation force, {c}: E_r change {e1:.3e} -> {e2:.3e}, order {order:.2f}')
    ok = ok and lo <= order <= hi
sys.exit(0 if ok else 1)" "$tmp" || fail "pulse with radiation force: imex not second order or split not first"

# marshak at tau = 1 (exchange and diffusion coupled): imex's error no larger than split's.
t1=$(/usr/bin/python3 -c "print(1 / (0.1 * 2.99792458e10))")
run marshak_split 2 --problem marshak --cells 128 --block-cells 32 --t-end "$t1" --rad-solver mg
run marshak_imex 2 --problem marshak --cells 128 --block-cells 32 --t-end "$t1" --rad-solver mg \
  --coupling imex
/usr/bin/python3 -c "
import json, sys
s, i = (json.load(open(f)) for f in sys.argv[1:])
print(f'marshak tau 1: linf_er split {s[\"linf_er\"]:.3e}, imex {i[\"linf_er\"]:.3e}')
sys.exit(0 if i['linf_er'] <= s['linf_er'] and i['coupling'] == 'imex' else 1)" \
  "$tmp/marshak_split.json" "$tmp/marshak_imex.json" || fail "marshak: imex less accurate than split"

invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['totals_end_hex'], r['cycles'], r['t_hex'],
                  r['rad_iterations'], r['rad_residual']]))" "$1"
}
runs=()
shock=(--problem rad-shock --dim 2 --cells 24 12 --block-cells 6 6 --max-cycles 3 --coupling imex)
run_matrix radhydro shock "1 2 4" "${shock[@]}"
expect_all_same shock_bsp_np1 "${runs[@]}"
echo "ok: imex rad-shock bits under ${#runs[@]} configurations"

# Fixed sweeps (recorded and replayed under dataflow --replay, in both implicit stages), 3-D.
fixed=(--problem rad-shock --dim 3 --cells 24 6 6 --max-cycles 4 --coupling imex --rad-sweeps 20)
run fixed_bsp_np1 1 --exec bsp "${fixed[@]}" --block-cells 6 6 6
run fixed_df_np3 3 --exec dataflow --threads 2 --replay "${fixed[@]}" --block-cells 12 3 6
run fixed_fj_np2 2 --exec forkjoin --threads 2 "${fixed[@]}" --block-cells 6 6 6
expect_all_same fixed_bsp_np1 fixed_df_np3 fixed_fj_np2
[[ "$(field "$tmp/fixed_bsp_np1.json" rad_iterations)" == 160 ]] ||
  fail "imex --rad-sweeps 20: not 2 x 20 per cycle"

mg=(--problem marshak --cells 96 --block-cells 16 --rad-solver mg --coupling imex)
run mg_bsp_np1 1 --exec bsp "${mg[@]}" --max-cycles 6
run mg_df_np3 3 --exec dataflow --threads 2 "${mg[@]}" --max-cycles 6
run mg_first 1 "${mg[@]}" --max-cycles 3 --checkpoint-every 3 --checkpoint-dir "$tmp/ck"
run mg_restarted 3 --exec forkjoin --threads 2 --restart latest --checkpoint-dir "$tmp/ck" \
  --max-cycles 6
expect_all_same mg_bsp_np1 mg_df_np3
restart_invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['totals_end_hex'], r['cycles'], r['t_hex'], r['coupling']]))" "$1"
}
expect_same mg_bsp_np1 mg_restarted restart_invariant
echo "radhydro_imex: PASS"
