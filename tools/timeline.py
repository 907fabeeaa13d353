#!/usr/bin/python3
"""Draws per-rank timelines of tessera traces (written by --trace) as a PNG.

One row per (rank, thread) with every task as a bar coloured by task name, and one
"mpi" row per rank showing each MPI operation from post to completion (sends red,
receives blue, collectives black; overlapping requests stacked inside the row). Time
runs left to right in milliseconds from the first event of each trace.

Several traces are stacked top to bottom on one shared time axis, so runs of the same
input compare directly (same colours for the same task names):

  timeline.py trace.json -o timeline.png
  timeline.py bsp.json dataflow.json -o x.png --titles bsp dataflow
  timeline.py trace.json -o zoom.png --window 10 12      # only 10 ms .. 12 ms
"""

import argparse
import collections
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

MPI_TID = 1000  # MPI rows are tid 1000 + lane
MPI_COLOURS = {"send": "#b2182b", "recv": "#2166ac", "allreduce": "#111111",
               "barrier": "#111111", "custom": "#7f7f7f"}
MAX_NAMED = 15  # task names with their own colour; the rest are grey "other"


class Trace:
    def __init__(self, path, window):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            events = data["traceEvents"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"timeline: cannot read trace {path}: {e}")
        spans = [e for e in events if e.get("ph") == "X"]
        self.origin = min((e["ts"] for e in spans), default=0.0)
        self.tasks = collections.defaultdict(list)  # (rank, tid) -> [(start ms, len ms, name)]
        self.mpi = collections.defaultdict(list)    # rank -> [(start ms, len ms, kind, lane)]
        self.ranks = set()
        self.threads = collections.defaultdict(set)
        for e in events:
            if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("tid", 0) < MPI_TID:
                self.ranks.add(e["pid"])
                self.threads[e["pid"]].add(e["tid"])
        for e in spans:
            start = (e["ts"] - self.origin) / 1000.0
            length = e.get("dur", 0) / 1000.0
            if window and (start + length < window[0] or start > window[1]):
                continue
            rank = e["pid"]
            self.ranks.add(rank)
            if e.get("cat") == "mpi":
                self.mpi[rank].append((start, length, e.get("args", {}).get("kind", "custom"),
                                       e["tid"] - MPI_TID))
            else:
                self.threads[rank].add(e["tid"])
                self.tasks[(rank, e["tid"])].append((start, length, e.get("name", "?")))
        self.end = max((s + l for rows in self.tasks.values() for s, l, _ in rows), default=0.0)
        self.end = max([self.end] + [s + l for ops in self.mpi.values() for s, l, _, _ in ops])

    def rows(self):
        """(label, kind, key) top to bottom: each rank's threads, then its MPI row."""
        out = []
        for rank in sorted(self.ranks):
            for tid in sorted(self.threads[rank]):
                out.append((f"r{rank} {'main' if tid == 0 else f't{tid}'}", "task", (rank, tid)))
            if self.mpi.get(rank):
                out.append((f"r{rank} mpi", "mpi", rank))
        return out

    def time_by_name(self):
        total = collections.Counter()
        for rows in self.tasks.values():
            for _, length, name in rows:
                total[name] += length
        return total


def colour_map(traces):
    total = collections.Counter()
    for t in traces:
        total.update(t.time_by_name())
    cmap = plt.get_cmap("tab20")
    # Distinct hues first (tab20's dark shades, then the light ones); reds and blues
    # last, as they mean MPI sends and receives on the MPI rows.
    order = [2, 4, 8, 10, 12, 16, 18, 14, 3, 5, 9, 11, 13, 17, 19, 15, 0, 1, 6, 7]
    named = [name for name, _ in total.most_common(MAX_NAMED)]
    colours = {name: cmap(order[i % len(order)]) for i, name in enumerate(named)}
    return colours, named, len(total) > len(named)


def draw(ax, trace, colours, title, window):
    rows = trace.rows()
    labels = []
    for index, (label, kind, key) in enumerate(reversed(rows)):
        labels.append(label)
        if kind == "task":
            by_name = collections.defaultdict(list)
            for start, length, name in trace.tasks[key]:
                by_name[name].append((start, max(length, 1e-6)))
            for name, bars in by_name.items():
                ax.broken_barh(bars, (index - 0.4, 0.8), facecolors=colours.get(name, "#bbbbbb"),
                               edgecolors="none")
        else:
            ops = trace.mpi[key]
            lanes = max(lane for _, _, _, lane in ops) + 1
            height = 0.8 / lanes
            by_kind = collections.defaultdict(list)
            for start, length, op_kind, lane in ops:
                by_kind[(op_kind, lane)].append((start, max(length, 1e-6)))
            for (op_kind, lane), bars in by_kind.items():
                ax.broken_barh(bars, (index - 0.4 + lane * height, height * 0.85),
                               facecolors=MPI_COLOURS.get(op_kind, "#7f7f7f"), edgecolors="none",
                               alpha=0.75)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_title(title, fontsize=10, loc="left")
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    if window:
        ax.set_xlim(*window)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("traces", nargs="+", metavar="TRACE.json")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.png")
    parser.add_argument("--titles", nargs="+", help="one title per trace (default: file names)")
    parser.add_argument("--window", nargs=2, type=float, metavar=("START_MS", "END_MS"),
                        help="draw only this time window")
    parser.add_argument("--width", type=float, default=12.0, help="figure width in inches")
    parser.add_argument("--dpi", type=int, default=100)
    opts = parser.parse_args()
    if opts.titles and len(opts.titles) != len(opts.traces):
        sys.exit(f"timeline: --titles: got {len(opts.titles)} title(s) for {len(opts.traces)} trace(s)")
    if opts.window and opts.window[1] <= opts.window[0]:
        sys.exit("timeline: --window: END_MS must be greater than START_MS")
    traces = [Trace(p, opts.window) for p in opts.traces]
    titles = opts.titles or [os.path.basename(p) for p in opts.traces]
    colours, named, has_other = colour_map(traces)

    heights = [max(len(t.rows()), 1) for t in traces]
    fig, axes = plt.subplots(len(traces), 1, sharex=True, squeeze=False,
                             figsize=(opts.width, 1.2 + 0.32 * sum(heights) + 0.5 * len(traces)),
                             gridspec_kw={"height_ratios": heights})
    for ax, trace, title in zip(axes[:, 0], traces, titles):
        draw(ax, trace, colours, f"{title}  ({trace.end:.2f} ms)", opts.window)
    axes[-1, 0].set_xlabel("time (ms)")
    handles = [Patch(color=colours[n], label=n) for n in named]
    if has_other:
        handles.append(Patch(color="#bbbbbb", label="other tasks"))
    kinds = sorted({k for t in traces for ops in t.mpi.values() for _, _, k, _ in ops})
    handles += [Patch(color=MPI_COLOURS.get(k, "#7f7f7f"), alpha=0.75, label=f"MPI {k}") for k in kinds]
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), 6), fontsize=8,
               frameon=False, bbox_to_anchor=(0.5, 1.0))
    legend_rows = (len(handles) + 5) // 6
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.22 * legend_rows / fig.get_figheight()))
    fig.savefig(opts.output, dpi=opts.dpi)
    print(f"timeline: wrote {opts.output}")


if __name__ == "__main__":
    main()
