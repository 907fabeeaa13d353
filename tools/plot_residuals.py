#!/usr/bin/python3
"""Plots poisson residual histories (written by `poisson --history FILE`) as a PNG.

Two panels side by side: the relative residual ||f - A u|| / ||f|| against the iteration
(red+black sweeps for rbgs, V-cycles for mg) and against the solve time in seconds, both
on a logarithmic residual axis, one line per history file:

  plot_residuals.py rbgs.csv mg.csv -o residuals.png
  plot_residuals.py rbgs.csv mg.csv -o residuals.png --labels "rbgs" "mg" --title "128x128"

Labels default to the files' names without directories, so no absolute path reaches the
figure. Exits with status 2 and one line naming the file on a missing or malformed history.
"""

import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_history(path):
    """Returns (iterations, seconds, residuals) of one history CSV."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from e
    if not rows or not {"iteration", "time_s", "residual"} <= set(rows[0]):
        raise ValueError(f"{path}: not a poisson history (want columns iteration,time_s,residual)")
    try:
        its = [int(r["iteration"]) for r in rows]
        secs = [float(r["time_s"]) for r in rows]
        res = [float(r["residual"]) for r in rows]
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: malformed row ({e})") from e
    return its, secs, res


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("histories", nargs="+", help="CSV files written by poisson --history")
    parser.add_argument("-o", "--output", required=True, help="PNG file to write")
    parser.add_argument("--labels", nargs="+", help="one legend label per history")
    parser.add_argument("--title", default="", help="figure title")
    args = parser.parse_args()
    if args.labels and len(args.labels) != len(args.histories):
        print(f"plot_residuals.py: error: --labels: {len(args.labels)} labels for "
              f"{len(args.histories)} histories", file=sys.stderr)
        return 2
    labels = args.labels or [os.path.basename(p) for p in args.histories]
    try:
        data = [read_history(p) for p in args.histories]
    except ValueError as e:
        print(f"plot_residuals.py: error: {e}", file=sys.stderr)
        return 2

    fig, (by_iteration, by_time) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (its, secs, res), label in zip(data, labels):
        # A residual of exactly 0 cannot be drawn on a log axis; it is left out.
        shown = [(i, s, r) for i, s, r in zip(its, secs, res) if r > 0]
        by_iteration.semilogy([p[0] for p in shown], [p[2] for p in shown], marker=".",
                              label=label)
        by_time.semilogy([p[1] for p in shown], [p[2] for p in shown], marker=".", label=label)
    by_iteration.set_xlabel("iteration (rbgs: red+black sweeps; mg: V-cycles)")
    by_time.set_xlabel("solve time (s)")
    for ax in (by_iteration, by_time):
        ax.set_ylabel("relative residual ||f - Au|| / ||f||")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
