#!/usr/bin/env python3
"""Clairvoyant's two join rules side by side in the α-β-γ model (patcoll-sim).

usage: compare_join.py --sim build/bin/patcoll-sim [--paps 20] > table.md

`end` ([PO], the default): a process joins a round if it arrives before the
round ends; `start`: only if it arrived by the round's start (so the
schedule's rounds·d bounds the executed time, tests/unit/test_clairvoyant.cpp
ClairvoyantJoin.*). For P ∈ {16, 48, 128}, m ∈ {512 KiB, 4 MiB}, [M]'s CURIE
model, and PAPs of two kinds (rank P−1 late by D; every rank uniform in
[0, D]) with D = 0.5, 2, 8 × the balanced Clairvoyant time t_c, prints the
mean simulated run time r and average elapsed time ē of both rules over
--paps PAPs (the same PAPs for both) and the ratio start / end. The
papers' model: combining after each step's wait (--no-overlap).
"""
import argparse
import csv
import io
import os
import random
import statistics
import subprocess
import tempfile


def simulate(sim, procs, size, pap, rule):
    text = subprocess.run([sim, "--alg", "clairvoyant", "--procs", str(procs), "--size", size,
                           "--pattern", pap, "--clairvoyant-join", rule, "--no-overlap", "--quiet"], check=True,
                          capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        if row["error"]:
            raise RuntimeError(row["error"])
    return [float(r["run_time_s"]) for r in rows], [float(r["avg_elapsed_s"]) for r in rows]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--paps", type=int, default=20)
    args = parser.parse_args()
    print("| P | m | PAP | D / t_c | r end [ms] | r start [ms] | r start/end | ē end [ms] | ē start [ms] |")
    print("|---|---|---|---|---|---|---|---|---|")
    for procs in (16, 48, 128):
        for size in ("512Ki", "4Mi"):
            tc = simulate(args.sim, procs, size, "none", "end")[0][0]
            for kind in ("one-late", "rand-late"):
                for factor in (0.5, 2, 8):
                    delay = factor * tc
                    rng = random.Random(procs * 1000 + int(factor * 10))
                    with tempfile.NamedTemporaryFile("w", suffix=".pap", delete=False) as trace:
                        for _ in range(args.paps if kind == "rand-late" else 1):
                            if kind == "one-late":
                                values = [0.0] * (procs - 1) + [delay]
                            else:
                                values = [rng.uniform(0, delay) for _ in range(procs)]
                            trace.write(" ".join("%.9e" % v for v in values) + "\n")
                    try:
                        r_end, e_end = simulate(args.sim, procs, size, "trace:" + trace.name, "end")
                        r_start, e_start = simulate(args.sim, procs, size, "trace:" + trace.name, "start")
                    finally:
                        os.unlink(trace.name)
                    m = statistics.mean
                    print("| %d | %s | %s | %g | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
                        procs, size, kind, factor, m(r_end) * 1e3, m(r_start) * 1e3, m(r_start) / m(r_end),
                        m(e_end) * 1e3, m(e_start) * 1e3))


if __name__ == "__main__":
    main()
