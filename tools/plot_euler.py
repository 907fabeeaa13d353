#!/usr/bin/python3
"""Render a slice of a plot file written by `euler --output-every` (PREFIX_<step>.h5, read
with tools/plot_file.py) as a PNG: the chosen field on the plane z = centre (3-D) or the
whole domain (2-D), every block's cells at their own size, with every block's outline.

Usage: /usr/bin/python3 tools/plot_euler.py out/euler_000100.h5 [-o slice.png]
       [--field rho|p|vx|vy|vz|speed|level|rank|<stored field>] [--gamma 1.4] [--log] [--z Z]
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_file  # noqa: E402


def values(out, name, gamma):
    """The field NAME per block ((blocks, nz, ny, nx)), derived from the conserved variables
    where it is not stored: vx vy vz speed p, and level and rank as cell data."""
    shape = (out.block_count,) + tuple(reversed(out.block_cells))
    if name in out.fields:
        return out.array(name)
    if name in ("level", "rank"):
        per_block = out.levels if name == "level" else out.ranks
        return np.broadcast_to(per_block.reshape(-1, 1, 1, 1), shape).astype(float)
    rho = out.array("rho")
    mom = [out.array(f"mom_{a}") for a in "xyz"]
    if name in ("vx", "vy", "vz"):
        return mom["xyz".index(name[1])] / rho
    if name == "speed":
        return np.sqrt(sum(m * m for m in mom)) / rho
    if name == "p":
        kinetic = 0.5 * sum(m * m for m in mom) / rho
        return (gamma - 1) * (out.array("energy") - kinetic)
    raise KeyError(name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("h5")
    parser.add_argument("-o", "--out", default=None, help="PNG path (default: <h5>.png)")
    parser.add_argument("--field", default="rho")
    parser.add_argument("--gamma", type=float, default=1.4, help="for p (default 1.4)")
    parser.add_argument("--log", action="store_true", help="logarithmic colour scale")
    parser.add_argument("--z", type=float, default=None, help="slice plane (default: centre)")
    args = parser.parse_args()
    try:
        out = plot_file.PlotFile(args.h5)
        data = values(out, args.field, args.gamma)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_euler.py: {e}")
    except KeyError:
        sys.exit(f"plot_euler.py: no field '{args.field}' in {args.h5} (stored: "
                 f"{', '.join(out.fields)}; derived: vx vy vz speed p level rank)")
    z = args.z if args.z is not None else 0.5 * (out.lo[2] + out.hi[2])
    nz = out.block_cells[2]
    # Per block cut by the plane: its cells' layer k and its extent in x and y.
    cut = []
    for b in range(out.block_count):
        o, h = out.origins[b], out.spacings[b]
        k = int(np.floor((z - o[2]) / h[2]))
        if z == out.hi[2] and k == nz:
            k = nz - 1  # the plane on the domain's top face: the cells below it
        if 0 <= k < nz:
            ny, nx = data.shape[2], data.shape[3]
            cut.append((data[b, k], (o[0], o[0] + nx * h[0], o[1], o[1] + ny * h[1])))
    if not cut:
        sys.exit(f"plot_euler.py: the plane z = {z} cuts no block of {args.h5}")
    lo = min(float(c.min()) for c, _ in cut)
    hi = max(float(c.max()) for c, _ in cut)
    norm = (matplotlib.colors.LogNorm(lo, hi) if args.log else
            matplotlib.colors.Normalize(lo, hi if hi > lo else lo + 1))
    x0, x1, y0, y1 = out.lo[0], out.hi[0], out.lo[1], out.hi[1]
    fig, ax = plt.subplots(figsize=(7, 7 * (y1 - y0) / (x1 - x0) + 0.5))
    for cells, extent in cut:  # each block's cells at their own size
        ax.imshow(cells, extent=extent, origin="lower", cmap="viridis", norm=norm,
                  interpolation="nearest", aspect="auto")
    fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap="viridis"), ax=ax,
                 label=args.field)
    outlines = [Rectangle((e[0], e[2]), e[1] - e[0], e[3] - e[2]) for _, e in cut]
    ax.add_collection(PatchCollection(outlines, facecolor="none", edgecolor="white",
                                      linewidths=0.6, alpha=0.8))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    title = f"{args.field} t = {out.time:.4g}, levels {out.levels.min()}..{out.levels.max()}"
    ax.set_title(title + (f" (z = {z:.4g})" if out.dim == 3 else ""))
    path = args.out or args.h5.rsplit(".", 1)[0] + ".png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print(f"plot_euler.py: wrote {path}")


if __name__ == "__main__":
    main()
