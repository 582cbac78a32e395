#!/usr/bin/env python3
"""[PS] Proficz 2020, Fig. 14 / Fig. 15 in the α-β-γ model (patcoll-sim).

usage: reproduce_ps.py --sim build/bin/patcoll-sim [--out docs/results/img] [--seeds 20]

Emulated 1 Gb/s cluster of [PS] §5 / [PA]: P = 48, α = 50 µs,
β = 8 ns/B, γ = 0 (scatter/gather combine nothing), total data 2 M floats
(8 MB; count per rank = 2 Mi / 48 floats), root 0. Every process arrives
uniformly at random in [0, D] (rand-late); run time r = max(f) − min(a)
averaged over --seeds PAPs per D (the same PAPs for every algorithm,
passed as a trace file). Writes ps_fig14_15.png and prints Markdown tables.
The background variants bsln/bsbn/bsls are runtime-threaded (not
catalogue Programs) and are not simulated.
"""
import argparse
import csv
import io
import os
import random
import statistics
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

P = 48
COUNT = 2 * 1024 * 1024 // P  # floats per rank
COST = dict(alpha=50e-6, beta=8e-9, gamma=0.0)
DELAYS_MS = [0, 1, 5, 10, 20, 50, 100, 200, 500]
ALGORITHMS = {"scatter": ["linear", "slin", "binomial", "sbn"],
              "gather": ["linear", "linear_sync", "sls", "binomial", "sbn"]}


def run(sim, collective, delay_ms, seeds, ports):
    """Mean and standard deviation of the run time [ms] per algorithm."""
    rng = random.Random(1000 + delay_ms)
    with tempfile.NamedTemporaryFile("w", suffix=".pap", delete=False) as trace:
        for _ in range(seeds):
            trace.write(" ".join(f"{rng.uniform(0, delay_ms * 1e-3):.9e}" for _ in range(P)) + "\n")
        path = trace.name
    try:
        command = [sim, "--coll", collective, "--alg", ",".join(ALGORITHMS[collective]),
                   "--procs", str(P), "--count", str(COUNT), "--element-bytes", "4", "--pattern", f"trace:{path}",
                   "--alpha", str(COST["alpha"]), "--beta", str(COST["beta"]), "--gamma", str(COST["gamma"]),
                   "--ports", ports, "--quiet"]
        text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    times = {}
    for row in csv.DictReader(io.StringIO(text)):
        if row["error"]:
            raise RuntimeError(" ".join(command) + ": " + row["error"])
        times.setdefault(row["algorithm"], []).append(float(row["run_time_s"]) * 1e3)
    return {a: (statistics.mean(v), statistics.pstdev(v)) for a, v in times.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--out", default=".")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--ports", default="full_duplex")
    args = parser.parse_args()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (collective, figure) in zip(axes, (("scatter", "Fig. 14"), ("gather", "Fig. 15"))):
        results = {d: run(args.sim, collective, d, args.seeds, args.ports) for d in DELAYS_MS}
        algorithms = ALGORITHMS[collective]
        print(f"\n{collective} ({figure}), P = {P}, 2 Mi floats, mean run time [ms] over {args.seeds} PAPs "
              f"(± σ), ports {args.ports}:\n")
        print("| max delay [ms] | " + " | ".join(algorithms) + " |")
        print("|---" * (len(algorithms) + 1) + "|")
        for d in DELAYS_MS:
            cells = [f"{results[d][a][0]:.1f} ± {results[d][a][1]:.1f}" for a in algorithms]
            print(f"| {d} | " + " | ".join(cells) + " |")
        x = [max(d, 0.5) for d in DELAYS_MS]  # log axis: 0 ms drawn at 0.5 ms
        for a in algorithms:
            ax.errorbar(x, [results[d][a][0] for d in DELAYS_MS], yerr=[results[d][a][1] for d in DELAYS_MS],
                        marker="o", capsize=3, label=a.upper())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("maximum delay D [ms] (0 drawn at 0.5)")
        ax.set_ylabel("run time [ms]")
        ax.set_title(f"[PS] {figure}: {collective}, P = 48, 8 MB, rand-late")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    name = "ps_fig14_15.png"
    fig.savefig(os.path.join(args.out, name), dpi=100)
    print(f"\n![{name}](img/{name})\n")


if __name__ == "__main__":
    main()
