#!/usr/bin/python3
"""Read tessera plot files (PREFIX_<step>.h5, written by write_plot_file, e.g. euler
--output-every) with h5py + numpy: every block's cells of a field with the coordinates of
their centres, on every level.

As a module (tools/ on sys.path):
    import plot_file
    out = plot_file.PlotFile("out/euler_000100.h5")
    for b in out.field("rho"):          # one Block per block, in the file's (curve) order
        b.level, b.rank, b.origin, b.spacing
        b.data                           # numpy array [z][y][x]
        b.x, b.y, b.z                    # cell-centre coordinates along each axis
    out.integral("rho")                  # sum over blocks of data * cell volume (the mass)

As a program, prints a summary (step, time, blocks by level and rank, per field its range
and integral):
    /usr/bin/python3 tools/plot_file.py out/euler_000100.h5 [--field rho ...]
"""
import argparse
import math
import sys
from dataclasses import dataclass

import h5py
import numpy as np

FORMAT = "tessera-plot"


@dataclass
class Block:
    """One block of one field: its place, its cells ([z][y][x]) and their centres."""
    index: int
    level: int
    rank: int
    origin: np.ndarray   # lower corner (x, y, z)
    spacing: np.ndarray  # cell size (dx, dy, dz)
    data: np.ndarray     # shape (nz, ny, nx)

    def centres(self, axis):
        n = self.data.shape[2 - axis]
        return self.origin[axis] + (np.arange(n) + 0.5) * self.spacing[axis]

    @property
    def x(self):
        return self.centres(0)

    @property
    def y(self):
        return self.centres(1)

    @property
    def z(self):
        return self.centres(2)

    @property
    def cell_volume(self):
        return float(np.prod(self.spacing))

    def box(self):
        """[[x0, x1], [y0, y1], [z0, z1]]: the block's extent."""
        n = np.array(self.data.shape[::-1])
        return np.stack([self.origin, self.origin + n * self.spacing], axis=-1)


class PlotFile:
    """One output. Raises ValueError if `path` is not a tessera plot file."""

    def __init__(self, path):
        self.path = path
        with h5py.File(path, "r") as f:
            fmt = f.attrs.get("format")
            if isinstance(fmt, bytes):
                fmt = fmt.decode()
            if fmt != FORMAT:
                raise ValueError(f"{path}: not a tessera plot file (format {fmt!r})")
            self.step = int(f.attrs["step"])
            self.time = float(f.attrs["time"])
            self.dim = int(f.attrs["dim"])
            self.block_cells = tuple(int(c) for c in f.attrs["block_cells"])
            self.lo = np.array(f.attrs["lo"], dtype=float)
            self.hi = np.array(f.attrs["hi"], dtype=float)
            self.levels = f["blocks/level"][:]
            self.ranks = f["blocks/rank"][:]
            self.origins = f["blocks/origin"][:]
            self.spacings = f["blocks/spacing"][:]
            self.fields = sorted(f["fields"].keys())

    @property
    def block_count(self):
        return len(self.levels)

    def array(self, name):
        """The whole dataset /fields/NAME: shape (blocks, nz, ny, nx)."""
        if name not in self.fields:
            raise KeyError(f"{self.path}: no field '{name}' (has {', '.join(self.fields)})")
        with h5py.File(self.path, "r") as f:
            return f["fields/" + name][:]

    def field(self, name):
        """One Block per block of field NAME."""
        values = self.array(name)
        return [Block(b, int(self.levels[b]), int(self.ranks[b]), self.origins[b],
                      self.spacings[b], values[b]) for b in range(self.block_count)]

    def integral(self, name):
        """Sum of value * cell volume over every cell (math.fsum: no rounding order)."""
        values = self.array(name)
        volumes = np.prod(self.spacings, axis=1)
        return math.fsum((values * volumes[:, None, None, None]).ravel().tolist())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("h5", help="a PREFIX_<step>.h5 plot file")
    parser.add_argument("--field", action="append", help="fields to summarize (default: all)")
    args = parser.parse_args()
    try:
        out = PlotFile(args.h5)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot_file.py: {e}")
    by_level = np.bincount(out.levels).tolist()
    by_rank = np.bincount(out.ranks).tolist()
    print(f"{args.h5}: step {out.step}, t = {out.time:.17g}, {out.dim}-D, "
          f"{out.block_count} blocks of {'x'.join(map(str, out.block_cells))} cells")
    print(f"  blocks by level {by_level}, by rank {by_rank}; domain {out.lo.tolist()} .. "
          f"{out.hi.tolist()}")
    for name in args.field or out.fields:
        try:
            values = out.array(name)
        except KeyError as e:
            sys.exit(f"plot_file.py: {e.args[0]}")
        print(f"  {name}: min {values.min():.9g} max {values.max():.9g} "
              f"integral {out.integral(name):.17g}")


if __name__ == "__main__":
    main()
