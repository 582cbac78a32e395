#!/usr/bin/env python3
"""Table of patcoll-bench JSON files for docs/results/adaptive.md: per collective and
pattern, the median run time of native and auto, their ratio, the spread
(interquartile range of auto/native per iteration), what auto chose, and the
bound and tight_bound rows. Usage: adaptive_table.py FILE.json [...]"""
import collections
import json
import statistics
import sys


def main(paths):
    print("| collective | pattern | D (ms) | native (ms) | auto (ms) | native/auto | IQR of per-iteration ratio | auto chose | bound (ms) | tight_bound (ms) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        try:
            rows = [json.loads(line) for line in open(path) if line.strip()]
        except (OSError, ValueError) as e:
            sys.exit("adaptive_table.py: %s: %s" % (path, e))
        collectives = collections.defaultdict(list)
        for r in rows:
            collectives[r["collective"]].append(r)
        for coll_rows in collectives.values():
            row(coll_rows)


def row(rows):
    if True:
        by = collections.defaultdict(dict)
        for r in rows:
            by[r["algorithm"]][r["iteration"]] = r
        if "native" not in by or "auto" not in by:
            return
        its = sorted(set(by["native"]) & set(by["auto"]))
        nat = [by["native"][i]["run_time_s"] for i in its]
        aut = [by["auto"][i]["run_time_s"] for i in its]
        ratios = sorted(n / a for n, a in zip(nat, aut))
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        chose = collections.Counter(by["auto"][i].get("chosen", "?") for i in its)
        bound = [r["run_time_s"] for r in by.get("bound", {}).values()]
        tight = [r["run_time_s"] for r in by.get("tight_bound", {}).values()]
        r0 = rows[0]
        print("| %s | %s | %.0f | %.1f | %.1f | %.3f | %.3f-%.3f | %s | %s | %s |" % (
            r0["collective"], r0["pattern"], r0["max_delay_s"] * 1e3, statistics.median(nat) * 1e3,
            statistics.median(aut) * 1e3, statistics.median(nat) / statistics.median(aut), q[0], q[2],
            ", ".join("%s %d" % kv for kv in chose.most_common()),
            "%.1f" % (statistics.median(bound) * 1e3) if bound else "-",
            "%.1f" % (statistics.median(tight) * 1e3) if tight else "-"))


if __name__ == "__main__":
    main(sys.argv[1:])
