#!/usr/bin/env bash
# euler --output-every writes plot files users open (docs/output.md): an adaptive 2-D run on
# 1 and 2 ranks writes PREFIX_<cycle>.h5 + .xmf at cycle 0, every N cycles and at the end,
# and the series PREFIX.xdmf. h5py reads every field of every output; the last output's
# integrals (value x cell volume over every block) match the report's final mass, momentum
# and energy, its blocks by level the report's; level, rank, origin and spacing are there
# per block, cells at their level's size; both rank counts store the same field bits; each
# XDMF file parses and names existing datasets of matching shape; nothing temporary is left;
# tools/plot_file.py summarizes and tools/plot_euler.py draws an output. An output
# directory that cannot be created or written stops every rank up front, naming
# --output-dir, before anything is written.
# Usage: output_euler.sh <build>/bin
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

blast=(--problem blast --dim 2 --cells 16 16 --block-cells 4 4 --max-level 2 --adapt-every 1
  --refine-above 0.5 --derefine-below 0.45 --blast-radius 0.2 --max-cycles 12)
for np in 1 2; do
  run_app euler "np$np" "$np" "${blast[@]}" --output-every 5 --output-dir "$tmp/np$np/out" \
    --output-prefix blast
done

/usr/bin/python3 - "$tmp" "$src/tools" <<'PY' || fail "the plot files"
import json, math, os, sys
import xml.etree.ElementTree as ET
import h5py
import numpy as np

tmp, tools = sys.argv[1], sys.argv[2]
sys.path.insert(0, tools)
import plot_file

def check(cond, what):
    if not cond:
        sys.exit(f"  {what}")

fields = ["energy", "mom_x", "mom_y", "mom_z", "rho"]
stored = {}
for np_ in (1, 2):
    out = f"{tmp}/np{np_}/out"
    report = json.load(open(f"{tmp}/np{np_}.json"))
    names = sorted(os.listdir(out))
    check(not [n for n in names if "tmp" in n or n.startswith(".")], f"np{np_}: leftovers {names}")
    # Cycle 0, every 5 cycles, and the end (cycle 12).
    steps = [0, 5, 10, 12]
    want = sorted([f"blast_{s:06d}.{e}" for s in steps for e in ("h5", "xmf")] + ["blast.xdmf"])
    check(names == want, f"np{np_}: files {names}, expected {want}")
    for s in steps:
        path = f"{out}/blast_{s:06d}.h5"
        pf = plot_file.PlotFile(path)
        check(pf.step == s, f"{path}: step {pf.step}")
        check(pf.fields == fields, f"{path}: fields {pf.fields}")
        n = pf.block_count
        check(pf.levels.shape == (n,) and pf.ranks.shape == (n,), f"{path}: level/rank shapes")
        check(set(pf.ranks.tolist()) == set(range(np_)), f"{path}: ranks {set(pf.ranks)}")
        check(np.all(np.diff(pf.ranks) >= 0), f"{path}: blocks not in rank order")
        # Cells at their level's size: level-0 cells are 1/16 wide; z is one cell.
        for a in (0, 1):
            check(np.array_equal(pf.spacings[:, a], 1 / 16 / 2.0 ** pf.levels), f"{path}: dx")
        check(np.all(pf.spacings[:, 2] == 1.0), f"{path}: dz")
        # The blocks tile the domain: their areas add up to 1.
        area = math.fsum((pf.spacings[:, 0] * pf.spacings[:, 1] * 16).tolist())
        check(area == 1.0, f"{path}: blocks cover {area!r}")
        for f in fields:
            a = pf.array(f)
            check(a.shape == (n, 1, 4, 4) and np.all(np.isfinite(a)), f"{path}: /fields/{f}")
        stored[(np_, s)] = {f: pf.array(f) for f in fields}
    # The last output holds the final state: its integrals are the report's totals.
    pf = plot_file.PlotFile(f"{out}/blast_000012.h5")
    totals = report["totals_end"]
    expect = {"rho": totals["mass"], "mom_x": totals["momentum"][0],
              "mom_y": totals["momentum"][1], "mom_z": totals["momentum"][2],
              "energy": totals["energy"]}
    for f, v in expect.items():
        got = pf.integral(f)
        check(abs(got - v) <= 1e-13 * max(1.0, abs(v)), f"np{np_}: integral of {f} {got!r}, "
              f"report {v!r}")
    check(np.bincount(pf.levels).tolist() == report["blocks_by_level"],
          f"np{np_}: blocks by level {np.bincount(pf.levels).tolist()}, "
          f"report {report['blocks_by_level']}")
    check(abs(pf.time - report["time"]) == 0, f"np{np_}: time {pf.time} != {report['time']}")
    print(f"  np{np_}: {len(steps)} outputs; mass {pf.integral('rho')!r} (report "
          f"{totals['mass']!r}), blocks by level {report['blocks_by_level']}")

    # XDMF: every file parses; every HDF reference names an existing dataset whose shape the
    # DataItem states; every block grid has the fields; the series lists every output.
    for s in steps:
        xmf = f"{out}/blast_{s:06d}.xmf"
        root = ET.parse(xmf).getroot()
        grids = root.findall("./Domain/Grid/Grid")
        with h5py.File(f"{out}/blast_{s:06d}.h5", "r") as h5:
            check(len(grids) == h5.attrs["block_count"], f"{xmf}: {len(grids)} block grids")
            for item in root.iter("DataItem"):
                if item.get("Format") != "HDF":
                    continue
                name, ds = item.text.strip().split(":")
                check(name == f"blast_{s:06d}.h5", f"{xmf}: refers to {name}")
                check(ds.lstrip("/") in h5, f"{xmf}: no dataset {ds}")
                dims = tuple(int(d) for d in item.get("Dimensions").split())
                check(dims == h5[ds].shape, f"{xmf}: {ds} dims {dims} != {h5[ds].shape}")
        for g in grids:
            names = sorted(a.get("Name") for a in g.findall("Attribute"))
            check(names == sorted(fields + ["level", "rank"]), f"{xmf}: attributes {names}")
    series = ET.parse(f"{out}/blast.xdmf").getroot()
    hrefs = [e.get("href") for e in series.iter("{http://www.w3.org/2001/XInclude}include")]
    check(hrefs == [f"blast_{s:06d}.xmf" for s in steps], f"series lists {hrefs}")

# The same run on 1 and 2 ranks stores the same bits (only /blocks/rank differs).
for s in (0, 5, 10, 12):
    for f in fields:
        check(np.array_equal(stored[(1, s)][f], stored[(2, s)][f]), f"cycle {s} {f}: 1 and 2 "
              "ranks differ")
print("  1 and 2 ranks: identical field data in every output")
PY
echo "ok: plot files on 1 and 2 ranks: fields, blocks, totals, XDMF, series"

/usr/bin/python3 "$src/tools/plot_file.py" "$tmp/np2/out/blast_000012.h5" >"$tmp/summary" ||
  fail "tools/plot_file.py failed"
grep -q "88 blocks\|blocks of 4x4x1 cells" "$tmp/summary" || { cat "$tmp/summary"; fail "summary"; }
/usr/bin/python3 "$src/tools/plot_euler.py" "$tmp/np2/out/blast_000012.h5" --field p \
  -o "$tmp/p.png" >/dev/null || fail "tools/plot_euler.py failed"
[[ -s "$tmp/p.png" ]] || fail "tools/plot_euler.py wrote no PNG"
echo "ok: tools/plot_file.py summarizes, tools/plot_euler.py draws an output"

# An output directory that cannot be written: one line naming --output-dir, every rank
# exits non-zero, no report, nothing written.
set +e
touch "$tmp/a_file"
for dir in "$tmp/a_file" "$tmp/a_file/sub" /proc/tessera-output; do
  refused 2 euler "${blast[@]}" --output-every 5 --output-dir "$dir"
  grep -q -- "--output-dir" "$tmp/out" || { cat "$tmp/out"; fail "--output-dir $dir: no message"; }
  echo "ok: --output-dir $dir -> $(grep -m1 -- "--output-dir" "$tmp/out")"
done
[[ ! -e "$tmp/a_file/sub" ]] || fail "created something under a file"
refused 1 euler "${blast[@]}" --output-every 5 --output-dir "$tmp/x" --output-prefix "a/b"
grep -q -- "--output-prefix" "$tmp/out" || { cat "$tmp/out"; fail "--output-prefix a/b: no message"; }
[[ ! -e "$tmp/x" ]] || fail "--output-prefix a/b created the output directory"
echo "ok: --output-prefix a/b -> $(grep -m1 -- "--output-prefix" "$tmp/out")"
