#!/usr/bin/env bash
# radhydro's marshak problem (the Su-Olson non-equilibrium Marshak wave, diffusion form,
# eps = 0.1): E_r within 2 % of a T_H^4 of the exact solution in every cell at tau = 0.1,
# 1 and 10 (Jacobi and multigrid, 1 and 2 ranks), and the same bits on 1 rank under bsp and
# on 3 ranks under dataflow with 2 threads (the lit face on one rank's blocks only).
# Usage: radhydro_marshak.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() { run_app radhydro "$@"; }
# t in seconds of tau (kappa rho = 1 cm^-1): tau = eps c kappa rho t.
t_of() { /usr/bin/python3 -c "print($1 / (0.1 * 2.99792458e10))"; }
check() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
ok = r['linf_er'] <= 0.02 and abs(r['tau'] - float(sys.argv[2])) <= 1e-12
print(f'marshak tau {r[\"tau\"]:.3g}: max |E_r - E_ref| / (a T_H^4) {r[\"linf_er\"]:.3e}, mean {r[\"l1_er\"]:.3e}, mean |T - T_ref| / T_ref {r[\"l1_t\"]:.3e}: {\"ok\" if ok else \"FAILED\"}')
sys.exit(0 if ok else 1)" "$tmp/$1.json" "$2" || fail "marshak at tau $2: not within 2 % of Su-Olson's"
}

# tau = 0.1: the wave 1.5 deep in x (20 / 256 per cell), dtau 1e-3.
run tau01 2 --problem marshak --cells 256 --block-cells 64 --t-end "$(t_of 0.1)" \
  --max-dt "$(t_of 0.001)"
check tau01 0.1
run tau1 2 --problem marshak --cells 128 --block-cells 32 --t-end "$(t_of 1)" --rad-solver mg
check tau1 1
run tau10 1 --problem marshak --cells 128 --block-cells 32 --t-end "$(t_of 10)" --rad-solver mg
check tau10 10

# The report's bits, the solve's sweeps and its residual.
invariant() {
  /usr/bin/python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps([r['checksum'], r['totals_end_hex'], r['cycles'], r['t_hex'],
                  r['rad_iterations'], r['rad_residual'], r['linf_er']]))" "$1"
}
bits=(--problem marshak --cells 96 --block-cells 16 --t-end "$(t_of 0.1)")
run bits_bsp_np1 1 --exec bsp "${bits[@]}"
run bits_df_np3 3 --exec dataflow --threads 2 "${bits[@]}"
expect_all_same bits_bsp_np1 bits_df_np3
echo "radhydro_marshak: PASS"
