#!/usr/bin/env python3
"""Plots patcoll-bench JSON lines (docs/results/bench.md) into one PNG.

    python3 tools/plot.py RESULTS.jsonl... -o OUT.png [--baseline native]

One row of three panels per collective:
  1. median run time vs max delay per algorithm ([PS] Fig. 14 style), at
     the largest message size, with the interquartile range as error bars;
  2. ratio of median run times to the baseline vs message size per
     algorithm, at the largest max delay;
  3. distribution of run times per algorithm (box plot) at the largest
     size and delay.
Repetitions flagged window_missed are left out, as in the bench's table.
Error bars are the interquartile range (25th to 75th percentile) of the run
time r over the iterations (said on the figure); the dashed grey line is the
delay D, the dashed black one the measured `bound` row (latest arrival +
one transfer + one reduction) and the dotted black one the `tight_bound`
row (docs/results/bounds.md) where the file has them. With a single message
size the ratio panel is a bar per algorithm.

numpy and matplotlib (Debian: python3-numpy, python3-matplotlib) are
imported only to draw: --help and the checks of the input work without
them; drawing without them is one line on stderr and exit code 2.

Bad input (a missing or unreadable file, a line that is not a patcoll-bench
record, a baseline that is not in the results) is one line on stderr,
"plot.py: ...", and exit code 2.
"""
import argparse
import collections
import json
import statistics
import sys


NEEDED = {"collective": str, "algorithm": str, "count": int, "procs": int, "max_delay_s": (int, float),
          "run_time_s": (int, float)}
BOUND = "bound"  # the bench's measured limit row, drawn as a line, not as an algorithm
TIGHT = "tight_bound"  # the bench's proved limit row, drawn as a dotted line


class BadInput(Exception):
    """What plot.py refuses; main() prints it as one line and exits 2."""


def load(paths):
    records = []
    for path in paths:
        try:
            f = open(path)
        except OSError as e:
            raise BadInput("cannot read %s: %s" % (path, e.strerror or e))
        with f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise BadInput("%s line %d: not JSON (%s)" % (path, number, e))
                if not isinstance(obj, dict):
                    raise BadInput("%s line %d: not a patcoll-bench record (a JSON object)" % (path, number))
                for key, kind in NEEDED.items():
                    if key not in obj or isinstance(obj[key], bool) or not isinstance(obj[key], kind):
                        raise BadInput("%s line %d: not a patcoll-bench record ('%s' missing or not a %s)"
                                       % (path, number, key, "number" if kind != str else "string"))
                if not obj.get("window_missed", False):
                    records.append(obj)
    return records


def group(records):
    """{collective: {(count, max_delay_s, algorithm): [run_time_s, ...]}}."""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in records:
        out[r["collective"]][(r["count"], r["max_delay_s"], r["algorithm"])].append(r["run_time_s"])
    return out


def algorithms_in_order(cells):
    seen = []
    for (_, _, alg) in cells:
        if alg not in seen:
            seen.append(alg)
    return seen


def ratios(cells, baseline):
    """{algorithm: [(count, ratio of medians to baseline)]} at the largest delay."""
    delay = max(d for (_, d, _) in cells)
    out = collections.defaultdict(list)
    counts = sorted({c for (c, d, _) in cells if d == delay})
    for count in counts:
        base = cells.get((count, delay, baseline))
        if not base:
            continue
        base_median = float(statistics.median(base))
        if base_median <= 0:
            continue
        for alg in algorithms_in_order(cells):
            values = cells.get((count, delay, alg))
            if values:
                out[alg].append((count, float(statistics.median(values)) / base_median))
    return out


def plot(records, output, baseline="native"):
    try:
        import numpy as np
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise BadInput("drawing needs numpy and matplotlib (Debian: python3-numpy python3-matplotlib): %s" % e)

    grouped = group(records)
    if not grouped:
        raise BadInput("no records to plot")
    algorithms = sorted({r["algorithm"] for r in records})
    if baseline not in algorithms:
        raise BadInput("baseline '%s' is not in the results (algorithms: %s)" % (baseline, ", ".join(algorithms)))
    rows = len(grouped)
    fig, axes = plt.subplots(rows, 3, figsize=(17, 4.8 * rows), squeeze=False)
    for row, (coll, cells) in enumerate(sorted(grouped.items())):
        algs = [a for a in algorithms_in_order(cells) if a not in (BOUND, TIGHT)]
        colors = {a: plt.cm.tab20(i % 20) for i, a in enumerate(algs)}
        colors[BOUND] = colors[TIGHT] = "black"
        count = max(c for (c, _, _) in cells)
        delay = max(d for (_, d, _) in cells)
        procs = max(r["procs"] for r in records if r["collective"] == coll)

        ax = axes[row][0]
        delays = sorted({d for (c, d, _) in cells if c == count})
        if len(delays) == 1:  # one delay only: a bar per algorithm
            names = [a for a in algs if cells.get((count, delay, a))]
            values = [np.array(cells[(count, delay, a)]) * 1e3 for a in names]
            med = np.array([np.median(v) for v in values])
            err = [med - [np.percentile(v, 25) for v in values], [np.percentile(v, 75) for v in values] - med]
            ax.bar(range(len(names)), med, yerr=err, capsize=3, color=[colors[a] for a in names])
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=60, fontsize=7)
            ax.set_ylabel("median run time [ms] (bars: IQR)")
            ax.set_title("%s, %d elements, P=%d, D=%.3g ms: run time" % (coll, count, procs, delay * 1e3))
            ax.grid(alpha=0.3, axis="y")
            if delay > 0:
                ax.axhline(delay * 1e3, color="grey", linestyle="--", linewidth=1, label="D")
            if cells.get((count, delay, BOUND)):
                ax.axhline(np.median(cells[(count, delay, BOUND)]) * 1e3, color="black", linestyle="--",
                           linewidth=1, label="bound")
            if cells.get((count, delay, TIGHT)):
                ax.axhline(np.median(cells[(count, delay, TIGHT)]) * 1e3, color="black", linestyle=":",
                           linewidth=1, label="tight_bound")
            if delay > 0 or cells.get((count, delay, BOUND)) or cells.get((count, delay, TIGHT)):
                ax.legend(fontsize=7)
        for alg in algs if len(delays) > 1 else []:
            points = sorted((d, v) for (c, d, a), v in cells.items() if a == alg and c == count)
            if not points:
                continue
            x = np.array([d for d, _ in points]) * 1e3
            med = np.array([np.median(v) for _, v in points]) * 1e3
            lo = med - np.array([np.percentile(v, 25) for _, v in points]) * 1e3
            hi = np.array([np.percentile(v, 75) for _, v in points]) * 1e3 - med
            ax.errorbar(x, med, yerr=[lo, hi], marker="o", capsize=3, label=alg, color=colors[alg],
                        linewidth=2.5 if alg == baseline else 1.2)
        if len(delays) > 1:
            bound = sorted((d, v) for (c, d, a), v in cells.items() if a == BOUND and c == count)
            if bound:
                ax.plot([d * 1e3 for d, _ in bound], [np.median(v) * 1e3 for _, v in bound], "k--", label="bound")
            tight = sorted((d, v) for (c, d, a), v in cells.items() if a == TIGHT and c == count)
            if tight:
                ax.plot([d * 1e3 for d, _ in tight], [np.median(v) * 1e3 for _, v in tight], "k:",
                        label="tight_bound")
            ax.plot([delays[0] * 1e3, delays[-1] * 1e3], [delays[0] * 1e3, delays[-1] * 1e3], color="grey",
                    linestyle="--", linewidth=1, label="r = D")
            ax.set_xlabel("max delay D [ms]")
            ax.set_ylabel("median run time [ms] (bars: IQR)")
            ax.set_title("%s, %d elements, P=%d: run time vs delay" % (coll, count, procs))
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, ncol=2)

        ax = axes[row][1]
        points_by_alg = ratios(cells, baseline)
        sizes = sorted({c for points in points_by_alg.values() for c, _ in points})
        if len(sizes) == 1:  # one message size: a bar per algorithm
            names = [a for a in algs + [BOUND, TIGHT] if points_by_alg.get(a)]
            ax.bar(range(len(names)), [points_by_alg[a][0][1] for a in names], color=[colors[a] for a in names])
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=60, fontsize=7)
            ax.set_xlabel("algorithm (count %d elements)" % sizes[0])
        for alg, points in points_by_alg.items() if len(sizes) > 1 else []:
            xs = [c for c, _ in points]
            ys = [q for _, q in points]
            ax.plot(xs, ys, marker="o", label=alg, color=colors[alg], linewidth=2.5 if alg == baseline else 1.2,
                    linestyle="--" if alg == BOUND else ":" if alg == TIGHT else "-")
        ax.axhline(1.0, color="black", linewidth=0.8)
        if len(sizes) > 1:
            ax.set_xscale("log")
            ax.set_xlabel("count [elements]")
            ax.legend(fontsize=7, ncol=2)
        ax.set_ylabel("median run time / median %s" % baseline)
        ax.set_title("%s: ratio to %s, D=%.3g ms" % (coll, baseline, delay * 1e3))
        ax.grid(alpha=0.3)

        ax = axes[row][2]
        data = [np.array(cells[(count, delay, a)]) * 1e3 for a in algs if cells.get((count, delay, a))]
        names = [a for a in algs if cells.get((count, delay, a))]
        if data:
            ax.boxplot(data, labels=names, vert=True, showfliers=True)
        if delay > 0:
            ax.axhline(delay * 1e3, color="grey", linestyle="--", linewidth=1)
        ax.set_ylabel("run time [ms]")
        ax.set_title("%s: distribution, %d elements, D=%.3g ms (dashed: D)" % (coll, count, delay * 1e3))
        ax.tick_params(axis="x", rotation=60, labelsize=7)
        ax.grid(alpha=0.3, axis="y")
    fig.text(0.5, 0.005, "run time r = max(a_i + e_i) - min(a); points and bars: median over iterations; "
             "error bars: interquartile range (25th-75th percentile) over iterations; dashed grey: the delay D; "
             "dashed black: bound (latest arrival + one transfer + one reduction); dotted black: tight_bound",
             ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(output, dpi=90)
    plt.close(fig)
    return output


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="JSON-lines files written by patcoll-bench --out")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    parser.add_argument("--baseline", default="native", help="algorithm the ratios divide by (default native)")
    args = parser.parse_args(argv)
    try:
        plot(load(args.results), args.output, args.baseline)
    except BadInput as e:
        print("plot.py: %s" % e, file=sys.stderr)
        return 2
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
