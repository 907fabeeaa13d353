#!/usr/bin/env bash
# On periodic domains (and between reflecting walls, for mass and energy) euler conserves
# mass, momentum and energy to round-off: the totals drift by at most 1e-13 relative over
# the run (momentum totals near zero: 1e-13 of the mass). The blast stays mirror-symmetric
# across the centre plane bit for bit. The history has one row per cycle.
# Usage: euler_conservation.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

run() {
  local name="$1" np="$2"
  shift 2
  run_app euler "$name" "$np" --history "$tmp/$name.history.csv" \
    --lineout "$tmp/$name.lineout.csv" "$@"
}

# check_conserved NAME VARS...: VARS are indices (0 mass, 1-3 momentum, 4 energy) to check.
check_conserved() {
  /usr/bin/python3 - "$tmp/$1.json" "$tmp/$1.history.csv" "${@:2}" <<'PY' || fail "$1: conservation"
import csv, json, sys
r = json.load(open(sys.argv[1]))
names = ["mass", "mom_x", "mom_y", "mom_z", "energy"]
def flat(t): return [t["mass"], *t["momentum"], t["energy"]]
a, b = flat(r["totals_start"]), flat(r["totals_end"])
ok = True
for v in map(int, sys.argv[3:]):
    scale = max(abs(a[v]), abs(a[0]))
    drift = abs(b[v] - a[v]) / scale
    print(f"  {names[v]}: start {a[v]!r} end {b[v]!r} drift {drift:.3g}")
    ok = ok and drift <= 1e-13
rows = list(csv.DictReader(open(sys.argv[2])))
if len(rows) != r["cycles"] + 1 or rows[0]["cycle"] != "0" or int(rows[-1]["cycle"]) != r["cycles"]:
    print("history rows", len(rows), "cycles", r["cycles"]); ok = False
if r["cycles"] < 10: print("too few cycles"); ok = False
sys.exit(0 if ok else 1)
PY
  echo "ok: $1 conserves ${*:2}"
}

# check_mirror NAME: the line-out through the centre is mirror-symmetric bit for bit.
check_mirror() {
  /usr/bin/python3 - "$tmp/$1.lineout.csv" <<'PY' || fail "$1: line-out is not mirror-symmetric"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = len(rows)
assert n >= 16
for i in range(n):
    a, b = rows[i], rows[n - 1 - i]
    assert float(a["x"]) == -float(b["x"]), (i, a["x"], b["x"])
    for key, sign in (("rho", 1), ("p", 1), ("vx", -1), ("vy", 1), ("vz", 1)):
        assert float(a[key]) == sign * float(b[key]), (i, key, a[key], b[key])
# the blast must have moved: the density is not uniform any more
assert len({r["rho"] for r in rows}) > 3
PY
  echo "ok: $1 is mirror-symmetric"
}

run blast2d 2 --problem blast --dim 2 --cells 48 48 --block-cells 8 8 --max-cycles 40
check_conserved blast2d 0 1 2 3 4
check_mirror blast2d
run blast3d 2 --problem blast --dim 3 --cells 16 16 16 --block-cells 8 8 8 --max-cycles 15 --exec bsp
check_conserved blast3d 0 1 2 3 4
check_mirror blast3d
run kh 2 --problem kh --dim 2 --cells 32 64 --block-cells 8 16 --max-cycles 40 --threads 2
check_conserved kh 0 1 2 3 4
run walls 1 --problem sod --dim 2 --cells 64 4 --block-cells 16 4 --boundary reflecting --t-end 0.6 --max-cycles 200
check_conserved walls 0 4
echo "euler_conservation: PASS"
