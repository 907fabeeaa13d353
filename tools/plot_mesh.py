#!/usr/bin/python3
"""Render a z-slice of the block layout of a tessera plot file (PREFIX_<step>.h5, written by
`miniamr --plot_freq` or any app's --output-every; read with tools/plot_file.py) as a PNG:
every block cut by the plane z = Z is drawn as a rectangle, coloured by refinement level (or
owner rank), with its outline.

Usage: /usr/bin/python3 tools/plot_mesh.py plot_000008.h5 [-o mesh.png] [--z 0.5] [--color level|rank]
"""
import argparse
import os
import sys

import matplotlib
import numpy as np

import plot_file

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def read_blocks(path):
    """Returns (boxes, fields): per block ((x0, x1), (y0, y1), (z0, z1)) and its level and rank."""
    out = plot_file.PlotFile(path)
    cells = np.array(out.block_cells, dtype=float)
    boxes = [tuple((o[a], o[a] + cells[a] * d[a]) for a in range(3))
             for o, d in zip(out.origins, out.spacings)]
    if not boxes:
        raise ValueError(f"{path}: no blocks found")
    return boxes, {"level": [int(v) for v in out.levels], "rank": [int(v) for v in out.ranks]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plot", help="plot file (.h5) written by miniamr --plot_freq or --output-every")
    parser.add_argument("-o", "--output", help="PNG to write (default: the input with .png)")
    parser.add_argument("--z", type=float, default=0.5, help="height of the slice in [0, 1] (default 0.5)")
    parser.add_argument("--color", choices=["level", "rank"], default="level", help="what the colour shows")
    args = parser.parse_args()
    if not 0.0 <= args.z <= 1.0:
        parser.error(f"--z must be in [0, 1], got {args.z}")
    try:
        boxes, fields = read_blocks(args.plot)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_mesh.py: {e}", file=sys.stderr)
        return 1
    if args.color not in fields:
        print(f"plot_mesh.py: {args.plot} has no '{args.color}' data", file=sys.stderr)
        return 1
    values = fields[args.color]
    # A block is cut by the plane when z0 <= Z < z1 (the top face of the cube belongs to
    # the blocks below it).
    cut = [k for k, b in enumerate(boxes) if b[2][0] <= args.z < b[2][1] or (args.z == 1.0 and b[2][1] == 1.0)]
    fig, ax = plt.subplots(figsize=(7, 6))
    patches = [Rectangle((boxes[k][0][0], boxes[k][1][0]), boxes[k][0][1] - boxes[k][0][0],
                         boxes[k][1][1] - boxes[k][1][0]) for k in cut]
    vmax = max(values) if values else 0
    cmap = plt.get_cmap("viridis" if args.color == "level" else "tab20", vmax + 1)
    collection = PatchCollection(patches, cmap=cmap, edgecolor="black", linewidth=0.4)
    collection.set_array([values[k] for k in cut])
    collection.set_clim(-0.5, vmax + 0.5)
    ax.add_collection(collection)
    bar = fig.colorbar(collection, ax=ax, ticks=range(vmax + 1))
    bar.set_label(args.color)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(f"{os.path.basename(args.plot)}: z = {args.z:g}, {len(cut)} of {len(boxes)} blocks")
    output = args.output or (args.plot[:-3] if args.plot.endswith(".h5") else args.plot) + ".png"
    fig.savefig(output, dpi=120, bbox_inches="tight")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
