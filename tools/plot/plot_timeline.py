#!/usr/bin/env python3
"""Gantt chart of one simulated case: patcoll-sim --timeline-csv output -> PNG.

usage: plot_timeline.py TIMELINE.csv OUT.png [--title TEXT]

One row per rank: the grey bar spans arrival..exit, coloured bars are busy
intervals (send, recv, combine, copy). Sends sit in the upper half of a row,
receives and computation in the lower half, so full-duplex overlap is visible.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"send": "#1f77b4", "recv": "#ff7f0e", "combine": "#2ca02c", "copy": "#9467bd"}


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    title = argv[argv.index("--title") + 1] if "--title" in argv else "patcoll-sim timeline"
    rows = list(csv.DictReader(open(argv[1])))
    ranks = sorted({int(r["rank"]) for r in rows})
    procs = max(ranks) + 1 if ranks else 1
    height = min(0.25 * procs + 1.5, 40)
    fig, ax = plt.subplots(figsize=(11, height))
    for kind in ("arrival", "send", "recv", "combine", "copy"):
        bars = [r for r in rows if r["activity"] == kind]
        if not bars:
            continue
        starts = [float(r["start"]) for r in bars]
        widths = [float(r["end"]) - float(r["start"]) for r in bars]
        if kind == "arrival":
            ax.barh([int(r["rank"]) for r in bars], widths, left=starts, height=0.9, color="#dddddd",
                    edgecolor="none", label="arrival..exit")
        else:
            offset = -0.2 if kind == "send" else 0.2  # y axis is inverted: sends on top
            ax.barh([int(r["rank"]) + offset for r in bars], widths, left=starts, height=0.4,
                    color=COLOURS[kind], edgecolor="black", linewidth=0.3, label=kind)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("rank")
    ax.invert_yaxis()
    if procs <= 32:
        ax.set_yticks(range(procs))
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
