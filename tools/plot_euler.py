#!/usr/bin/python3
"""Render a slice of a VTK file written by `euler --plot-every` (legacy VTK
STRUCTURED_POINTS with cell data rho, v, p, level, rank) as a PNG: the chosen field on the
plane z = centre (3-D) or the whole domain (2-D), with the block outlines.

Usage: /usr/bin/python3 tools/plot_euler.py euler_c000100.vtk [-o slice.png]
       [--field rho|p|vx|vy|vz|speed|level|rank] [--log]
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read_vtk(path):
    """Returns (meta, fields): dims (cells), origin, spacing, block cells, time; and
    per-field arrays of shape (nz, ny, nx) (vectors: (nz, ny, nx, 3))."""
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines[0].startswith("# vtk"):
        raise ValueError(f"{path}: not a legacy VTK file")
    title = lines[1].split()
    meta = {"title": lines[1], "block_cells": None, "time": None}
    if "block_cells" in title:
        k = title.index("block_cells")
        meta["block_cells"] = [int(v) for v in title[k + 1:k + 4]]
    for word in title:
        if word.startswith("t="):
            meta["time"] = float(word[2:])
    tokens = " ".join(lines[2:]).split()
    fields = {}
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t == "DIMENSIONS":
            meta["cells"] = [int(v) - 1 for v in tokens[i + 1:i + 4]]
            i += 4
        elif t == "ORIGIN":
            meta["origin"] = [float(v) for v in tokens[i + 1:i + 4]]
            i += 4
        elif t == "SPACING":
            meta["spacing"] = [float(v) for v in tokens[i + 1:i + 4]]
            i += 4
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
    nx, ny, nz = meta["cells"]
    for name, a in fields.items():
        fields[name] = a.reshape((nz, ny, nx) + a.shape[1:])
    return meta, fields


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vtk")
    parser.add_argument("-o", "--out", default=None, help="PNG path (default: <vtk>.png)")
    parser.add_argument("--field", default="rho")
    parser.add_argument("--log", action="store_true", help="logarithmic colour scale")
    args = parser.parse_args()
    meta, fields = read_vtk(args.vtk)
    nx, ny, nz = meta["cells"]
    if args.field in ("vx", "vy", "vz"):
        data = fields["v"][..., "xyz".index(args.field[1])]
    elif args.field == "speed":
        data = np.linalg.norm(fields["v"], axis=-1)
    elif args.field in fields:
        data = fields[args.field]
    else:
        sys.exit(f"plot_euler.py: no field '{args.field}' in {args.vtk}")
    plane = data[nz // 2]
    (x0, y0, _), (dx, dy, _) = meta["origin"], meta["spacing"]
    extent = (x0, x0 + nx * dx, y0, y0 + ny * dy)
    fig, ax = plt.subplots(figsize=(7, 7 * ny * dy / (nx * dx) + 0.5))
    norm = matplotlib.colors.LogNorm() if args.log else None
    image = ax.imshow(plane, origin="lower", extent=extent, cmap="viridis", norm=norm,
                      interpolation="nearest")
    fig.colorbar(image, ax=ax, label=args.field)
    if meta["block_cells"]:
        bx, by, _ = meta["block_cells"]
        for i in range(0, nx + 1, bx):
            ax.axvline(x0 + i * dx, color="white", lw=0.5, alpha=0.6)
        for j in range(0, ny + 1, by):
            ax.axhline(y0 + j * dy, color="white", lw=0.5, alpha=0.6)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    when = f" t = {meta['time']:.4g}" if meta["time"] is not None else ""
    ax.set_title(f"{args.field}{when}" + (f" (z slice {nz // 2} of {nz})" if nz > 1 else ""))
    out = args.out or args.vtk.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=120, bbox_inches="tight")
    print(f"plot_euler.py: wrote {out}")


if __name__ == "__main__":
    main()
