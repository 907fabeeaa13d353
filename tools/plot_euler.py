#!/usr/bin/python3
"""Render a slice of a VTK file written by `euler --plot-every` (legacy VTK
UNSTRUCTURED_GRID: one pixel or voxel per leaf cell at its true size, with cell data rho, v,
p, level, rank, block) as a PNG: the chosen field on the plane z = centre (3-D) or the whole
domain (2-D), every cell at its own size, with the outline of every block at every level.

Usage: /usr/bin/python3 tools/plot_euler.py euler_c000100.vtk [-o slice.png]
       [--field rho|p|vx|vy|vz|speed|level|rank|block] [--log] [--z Z]
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def read_vtk(path):
    """Returns (meta, boxes, fields): the title's time; per cell its box as an array of
    shape (n, 3, 2) (axis, low/high); per field an array of n values (vectors: (n, 3))."""
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines[0].startswith("# vtk"):
        raise ValueError(f"{path}: not a legacy VTK file")
    title = lines[1].split()
    meta = {"title": lines[1], "time": None}
    for word in title:
        if word.startswith("t="):
            meta["time"] = float(word[2:])
    tokens = " ".join(lines[2:]).split()
    fields, points, cells = {}, None, None
    n = 0
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t == "DATASET" and tokens[i + 1] != "UNSTRUCTURED_GRID":
            raise ValueError(f"{path}: {tokens[i + 1]}, expected an UNSTRUCTURED_GRID")
        if t == "POINTS":
            count = int(tokens[i + 1])
            i += 3
            points = np.array(tokens[i:i + 3 * count], dtype=float).reshape(count, 3)
            i += 3 * count
        elif t == "CELLS":
            count, size = int(tokens[i + 1]), int(tokens[i + 2])
            i += 3
            flat = np.array(tokens[i:i + size], dtype=np.int64)
            per = flat[0]
            cells = flat.reshape(count, per + 1)[:, 1:]
            i += size
        elif t == "CELL_DATA":
            n = int(tokens[i + 1])
            i += 2
        elif t == "SCALARS":
            name = tokens[i + 1]
            i += 6  # SCALARS name type 1 LOOKUP_TABLE default
            fields[name] = np.array(tokens[i:i + n], dtype=float)
            i += n
        elif t == "VECTORS":
            name = tokens[i + 1]
            i += 3
            fields[name] = np.array(tokens[i:i + 3 * n], dtype=float).reshape(n, 3)
            i += 3 * n
        else:
            i += 1
    if points is None or cells is None:
        raise ValueError(f"{path}: no POINTS or CELLS")
    corners = points[cells]  # (n, corners, 3)
    boxes = np.stack([corners.min(axis=1), corners.max(axis=1)], axis=-1)
    return meta, boxes, fields


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vtk")
    parser.add_argument("-o", "--out", default=None, help="PNG path (default: <vtk>.png)")
    parser.add_argument("--field", default="rho")
    parser.add_argument("--log", action="store_true", help="logarithmic colour scale")
    parser.add_argument("--z", type=float, default=None, help="slice plane (default: centre)")
    args = parser.parse_args()
    meta, boxes, fields = read_vtk(args.vtk)
    if args.field in ("vx", "vy", "vz"):
        data = fields["v"][:, "xyz".index(args.field[1])]
    elif args.field == "speed":
        data = np.linalg.norm(fields["v"], axis=-1)
    elif args.field in fields:
        data = fields[args.field]
    else:
        sys.exit(f"plot_euler.py: no field '{args.field}' in {args.vtk}")
    zlo, zhi = boxes[:, 2, 0].min(), boxes[:, 2, 1].max()
    z = args.z if args.z is not None else 0.5 * (zlo + zhi)
    # The cells the plane cuts (half-open, so each point of the plane lies in one cell).
    cut = (boxes[:, 2, 0] <= z) & ((z < boxes[:, 2, 1]) | (boxes[:, 2, 1] == zhi))
    if not cut.any():
        sys.exit(f"plot_euler.py: the plane z = {z} cuts no cell of {args.vtk}")
    b, d = boxes[cut], data[cut]
    x0, x1 = b[:, 0, 0].min(), b[:, 0, 1].max()
    y0, y1 = b[:, 1, 0].min(), b[:, 1, 1].max()
    fig, ax = plt.subplots(figsize=(7, 7 * (y1 - y0) / (x1 - x0) + 0.5))
    patches = [Rectangle((c[0, 0], c[1, 0]), c[0, 1] - c[0, 0], c[1, 1] - c[1, 0]) for c in b]
    norm = matplotlib.colors.LogNorm() if args.log else None
    coll = PatchCollection(patches, cmap="viridis", norm=norm, linewidths=0)
    coll.set_array(d)
    ax.add_collection(coll)
    fig.colorbar(coll, ax=ax, label=args.field)
    if "block" in fields:
        # Each block's outline: the box around its cells in the plane.
        blocks = fields["block"][cut].astype(np.int64)
        outlines = []
        for blk in np.unique(blocks):
            c = b[blocks == blk]
            outlines.append(Rectangle((c[:, 0, 0].min(), c[:, 1, 0].min()),
                                      c[:, 0, 1].max() - c[:, 0, 0].min(),
                                      c[:, 1, 1].max() - c[:, 1, 0].min()))
        ax.add_collection(PatchCollection(outlines, facecolor="none", edgecolor="white",
                                          linewidths=0.6, alpha=0.8))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    when = f" t = {meta['time']:.4g}" if meta["time"] is not None else ""
    levels = f", levels {int(fields['level'].min())}..{int(fields['level'].max())}" \
        if "level" in fields else ""
    ax.set_title(f"{args.field}{when}{levels}" + (f" (z = {z:.4g})" if zhi - zlo > 0 and
                                                 boxes[:, 2, 1].min() < zhi else ""))
    out = args.out or args.vtk.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"plot_euler.py: wrote {out}")


if __name__ == "__main__":
    main()
