#!/usr/bin/env bash
# poisson converges: rbgs stops at the first check whose residual is within --tolerance, mg
# reaches it in far fewer iterations (V-cycles) with the same error;
# the error against the exact solution falls at second order when the mesh is refined
# (2-D and 3-D); --history writes the checks as CSV and tools/plot_residuals.py draws them.
# Usage: poisson_convergence.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

run() {
  local name="$1" np="$2"
  shift 2
  launch "$np" "$bin/poisson" --quiet \
    --hang-timeout 30 --report "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out"; fail "$name: poisson $* on $np rank(s) exited non-zero"; }
}

# rbgs reaches the tolerance, and stops at the first check that does.
run rbgs 2 --exec dataflow --solver rbgs --cells 128 128 --block-cells 32 32 --tolerance 1e-9 \
  --sweeps-per-check 50 --history "$tmp/rbgs.csv"
/usr/bin/python3 - "$tmp/rbgs.json" "$tmp/rbgs.csv" <<'PY' || fail "rbgs did not stop at the tolerance"
import csv, json, sys
r = json.load(open(sys.argv[1]))
h = r["history"]
assert r["converged"] and r["residual"] <= 1e-9, (r["converged"], r["residual"])
assert h[0]["iteration"] == 0 and h[0]["residual"] == 1.0, h[0]
assert [p["iteration"] for p in h] == list(range(0, r["iterations"] + 1, 50)), h
assert all(p["residual"] > 1e-9 for p in h[:-1]) and h[-1]["residual"] == r["residual"], h
rows = list(csv.DictReader(open(sys.argv[2])))
assert [(int(x["iteration"]), float(x["residual"])) for x in rows] == \
    [(p["iteration"], p["residual"]) for p in h], "history CSV differs from the report"
print(f"rbgs: residual {r['residual']:.3e} <= 1e-9 after {r['iterations']} iterations")
PY

# mg reaches the same tolerance on the same problem in far fewer iterations (V-cycles),
# and the same discrete solution.
run mg 2 --exec dataflow --threads 2 --solver mg --cells 128 128 --block-cells 32 32 \
  --tolerance 1e-9 --history "$tmp/mg.csv"
/usr/bin/python3 - "$tmp/rbgs.json" "$tmp/mg.json" <<'PY' || fail "mg does not beat rbgs"
import json, sys
rbgs, mg = (json.load(open(p)) for p in sys.argv[1:3])
assert mg["converged"] and mg["residual"] <= 1e-9, (mg["converged"], mg["residual"])
assert [p["iteration"] for p in mg["history"]] == list(range(mg["iterations"] + 1))
assert all(b["residual"] < 0.2 * a["residual"] for a, b in zip(mg["history"], mg["history"][1:])), \
    "a V-cycle reduced the residual by less than 5x"
assert 20 * mg["iterations"] <= rbgs["iterations"], (mg["iterations"], rbgs["iterations"])
for norm in ("l2_error", "max_error"):
    assert abs(mg[norm] - rbgs[norm]) <= 1e-6 * rbgs[norm], (norm, mg[norm], rbgs[norm])
print(f"mg: residual {mg['residual']:.3e} <= 1e-9 after {mg['iterations']} V-cycles "
      f"(rbgs: {rbgs['iterations']} iterations); same error {mg['l2_error']:.6e}")
PY

# Second order: converge on two grids (h and h/2) and compare the errors.
order() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, math, sys
coarse, fine = (json.load(open(p)) for p in sys.argv[1:3])
for r in (coarse, fine):
    assert r["converged"], f"not converged: residual {r['residual']}"
for norm in ("l2_error", "max_error"):
    ratio = coarse[norm] / fine[norm]
    order = math.log2(ratio)
    print(f"{len(coarse['cells'])}-D {norm}: {coarse[norm]:.4e} -> {fine[norm]:.4e} when h halves: "
          f"order {order:.3f}")
    assert abs(order - 2) <= 0.1, order
PY
}
run order2d_coarse 1 --exec bsp --cells 32 32 --block-cells 16 16 --modes 3 2 --tolerance 1e-9
run order2d_fine 2 --exec dataflow --cells 64 64 --block-cells 16 16 --modes 3 2 --tolerance 1e-9
order "$tmp/order2d_coarse.json" "$tmp/order2d_fine.json" || fail "2-D error is not second order"
run order3d_coarse 1 --exec bsp --dim 3 --cells 16 16 16 --block-cells 8 8 8 --modes 3 2 1 \
  --tolerance 1e-9
run order3d_fine 2 --exec dataflow --threads 2 --dim 3 --cells 32 32 32 --block-cells 16 16 8 \
  --modes 3 2 1 --tolerance 1e-9
order "$tmp/order3d_coarse.json" "$tmp/order3d_fine.json" || fail "3-D error is not second order"

# A solve stopped by --max-iterations short of its tolerance warns and exits 3 (the report
# still says converged: false); --tolerance 0 asks for exactly that many iterations.
timeout 60 "$bin/poisson" --quiet --report "$tmp/short.json" --cells 32 32 --block-cells 16 16 \
  --max-iterations 5 --sweeps-per-check 5 >"$tmp/short.out" 2>&1 && rc=0 || rc=$?
[[ $rc -eq 3 ]] || { cat "$tmp/short.out"; fail "an unconverged solve exited $rc, not 3"; }
grep -qE "^poisson: warning: --max-iterations 5 reached before --tolerance 1e-08 \(residual [0-9.e+-]+\); exit status 3$" \
  "$tmp/short.out" || { cat "$tmp/short.out"; fail "an unconverged solve gave no warning line"; }
[[ "$(field "$tmp/short.json" converged)" == "False" ]] || fail "the unconverged report says converged"
timeout 60 "$bin/poisson" --quiet --cells 32 32 --block-cells 16 16 --max-iterations 5 \
  --sweeps-per-check 5 --tolerance 0 >"$tmp/fixed.out" 2>&1 ||
  { cat "$tmp/fixed.out"; fail "--tolerance 0 --max-iterations 5 exited non-zero"; }
! grep -q warning "$tmp/fixed.out" || fail "--tolerance 0 warned"
echo "ok: unconverged solve exits 3 with a warning; --tolerance 0 runs a fixed count"

# The plot tool draws the history; labels default to file names, not paths.
/usr/bin/python3 "$src/tools/plot_residuals.py" "$tmp/rbgs.csv" "$tmp/mg.csv" -o "$tmp/residuals.png" >/dev/null ||
  fail "plot_residuals.py failed"
[[ "$(head -c 4 "$tmp/residuals.png" | tail -c 3)" == "PNG" ]] || fail "plot_residuals.py wrote no PNG"
echo "poisson_convergence: PASS"
