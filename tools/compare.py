#!/usr/bin/python3
"""Bar chart comparing run reports (written by --report) as a PNG.

For every phase in the reports' "phases" (main-thread seconds, maximum over ranks) and
for the total wall time, one group of bars with one bar per report, labelled by
execution model, ranks x threads and overlap fraction (or by --labels):

  compare.py bsp.json forkjoin.json dataflow.json -o phases.png
  compare.py a.json b.json -o x.png --labels "before" "after" --title "jacobi7 64^3"
"""

import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare: cannot read report {path}: {e}")
    if not isinstance(report, dict) or "wall_s" not in report:
        sys.exit(f"compare: {path} is not a tessera run report (no \"wall_s\")")
    return report


def label_of(report):
    text = f"{report.get('exec', '?')} {report.get('ranks', '?')}x{report.get('threads', '?')}"
    if report.get("overlap_fraction") is not None:  # null with --stats counts
        text += f" (overlap {100 * report['overlap_fraction']:.0f}%)"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.png")
    parser.add_argument("--labels", nargs="+", help="one label per report")
    parser.add_argument("--title", default=None)
    opts = parser.parse_args()
    if opts.labels and len(opts.labels) != len(opts.reports):
        sys.exit(f"compare: --labels: got {len(opts.labels)} label(s) for {len(opts.reports)} report(s)")
    reports = [load(p) for p in opts.reports]
    labels = opts.labels or [label_of(r) for r in reports]

    # Phases in order of their largest time, then the wall time.
    longest = {}
    for r in reports:
        for name, seconds in r.get("phases", {}).items():
            longest[name] = max(longest.get(name, 0.0), float(seconds))
    groups = sorted(longest, key=lambda n: -longest[n]) + ["wall time"]

    n = len(reports)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 + 0.9 * len(groups) * max(1, n / 2)), 4.5))
    cmap = plt.get_cmap("tab10")
    top = 0.0
    for i, (report, label) in enumerate(zip(reports, labels)):
        values = [float(report.get("phases", {}).get(g, 0.0)) for g in groups[:-1]]
        values.append(float(report["wall_s"]))
        top = max([top] + values)
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        bars = ax.bar(xs, values, width * 0.92, label=label, color=cmap(i % 10))
        ax.bar_label(bars, labels=[f"{v:.3g}" for v in values], fontsize=7, padding=1)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=9)
    ax.set_ylabel("seconds")
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.grid(axis="y", linestyle=":", linewidth=0.5)
    ax.legend(fontsize=8, frameon=False)
    apps = sorted({str(r.get("app", "")) for r in reports} - {""})
    ax.set_title(opts.title or (", ".join(apps) + ": phase times (max over ranks) and wall time"),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(opts.output, dpi=100)
    print(f"compare: wrote {opts.output}")


if __name__ == "__main__":
    main()
