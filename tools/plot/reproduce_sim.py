#!/usr/bin/env python3
"""Model reproductions of the papers' figures with patcoll-sim.

usage: reproduce_sim.py --sim build/bin/patcoll-sim [--out docs/results/img] [--only NAME,...] [--quick]

Runs the simulator (the catalogue's real Programs in the α-β-γ model),
writes one PNG per figure into --out and prints the numbers that
docs/results/reproductions.md quotes as Markdown. Sections: m_table3, m_fig10,
m_fig12, ll_fig4, ll_fig5, ll_fig6, ll_bigreedy, pa_onelate.
"""
import argparse
import csv
import io
import math
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CURIE = dict(alpha=2.66e-6, beta=4.8179e-10, gamma=1.6654e-10)
SIM = None
OUT = "."


def sim(**options):
    """Runs patcoll-sim with --key value options; returns the CSV rows.
    The papers' model: combines after each step's transfers (--no-overlap)."""
    command = [SIM, "--no-overlap", "--quiet"]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            command.append(flag)
        else:
            command += [flag, str(value)]
    text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        if row["error"]:
            raise RuntimeError(" ".join(command) + ": " + row["error"])
        for key in ("run_time_s", "avg_elapsed_s", "balanced_run_time_s", "absorption_s", "imbalance_s"):
            row[key] = float(row[key])
        for key in ("procs", "bytes", "count", "segments"):
            row[key] = int(row[key])
    return rows


def ceil_log2(x):
    return max(0, math.ceil(math.log2(x))) if x > 1 else 0


def save(fig, name):
    fig.tight_layout()
    fig.savefig(f"{OUT}/{name}", dpi=100)
    plt.close(fig)
    print(f"\n![{name}](img/{name})\n")


# ----------------------------------------------------------------- [M]

def m_formulas(P, m, alpha, beta, gamma, radix=(4, 4, 8)):
    a, b, g = alpha, beta, gamma
    n = ceil_log2(P)
    f = (P - 1) / P
    return {
        "binomial": n * (a + b * m + g * m),
        "rabenseifner": 2 * a * n + 2 * f * m * b + f * m * g,
        "ring": (P - 1 + n) * a + f * m * (2 * b + g),
        "radix_k": (sum(k - 1 for k in radix) + n) * a + f * m * (2 * b + g),
        "chain": (P - 2) * a + 2 * math.sqrt((P - 2) * a) * math.sqrt(m * (b + g)) + m * (b + g),
        "clairvoyant": (n - 1) * a + 2 * math.sqrt((n - 1) * a) * math.sqrt(m * (b + g)) + m * (b + g),
    }


def chain_segments(P, m, alpha, beta, gamma, element_bytes=4):
    a, b, g = alpha, beta, gamma
    n_opt = math.sqrt((P - 2) * m * (b + g) / a)
    return max(1, min(m // element_bytes, round(n_opt)))


def m_run(P, sizes, algorithms, pattern="none", **extra):
    """Simulated rows for [M]'s algorithms; chain gets its optimal N per size."""
    rows = []
    others = [x for x in algorithms if x != "chain"]
    if others:
        rows += sim(alg=",".join(others), procs=P, size=",".join(map(str, sizes)), radix="4x4x8",
                    pattern=pattern, **CURIE, **extra)
    if "chain" in algorithms:
        for m in sizes:
            rows += sim(alg="chain", procs=P, size=m, segments=chain_segments(P, m, **CURIE), pattern=pattern,
                        **CURIE, **extra)
    return rows


M_ALGORITHMS = ["binomial", "rabenseifner", "ring", "radix_k", "chain", "clairvoyant"]
M_SIZES = [128 * 1024, 512 * 1024, 2 * 2**20, 4 * 2**20, 40 * 2**20]


def m_table3():
    P = 128
    rows = m_run(P, M_SIZES, M_ALGORITHMS)
    print("| algorithm | m | Table 3 closed form [ms] | simulated [ms] | simulated / formula | segments |")
    print("|---|---|---|---|---|---|")
    for name in M_ALGORITHMS:
        for m in M_SIZES:
            row = next(r for r in rows if r["algorithm"] == name and r["bytes"] == m)
            formula = m_formulas(P, m, **CURIE)[name]
            print(f"| {name} | {m // 1024} KiB | {formula * 1e3:.4f} | {row['run_time_s'] * 1e3:.4f} | "
                  f"{row['run_time_s'] / formula:.4f} | {row['segments'] or '-'} |")


def m_fig10():
    P = 128
    sizes = sorted({int(round(4 * 2 ** (k / 2))) // 4 * 4 for k in range(16, 53)})  # 1 KiB … 64 MiB
    rows = m_run(P, sizes, M_ALGORITHMS)
    by = {(r["algorithm"], r["bytes"]): r["run_time_s"] for r in rows}
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for name in M_ALGORITHMS:
        if name == "clairvoyant":
            continue
        ys = [by[(name, m)] / by[("clairvoyant", m)] for m in sizes]
        fs = [m_formulas(P, m, **CURIE)[name] / m_formulas(P, m, **CURIE)["clairvoyant"] for m in sizes]
        left.plot([m / 4 for m in sizes], fs, label=name)
        right.plot([m / 4 for m in sizes], ys, label=name)
    for ax, title in ((left, "[M] Table 3 formulas (as Fig. 10)"), (right, "patcoll-sim, same machine")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("problem size [multiples of 4 B]")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    left.set_ylabel("runtime relative to Clairvoyant")
    right.legend(fontsize="small")
    save(fig, "m_fig10.png")
    # Butterfly vs Clairvoyant: minimum ratio and where it is <= 1.
    for label, ratio in (("formula", lambda m: m_formulas(P, m, **CURIE)["rabenseifner"] /
                          m_formulas(P, m, **CURIE)["clairvoyant"]),
                         ("simulated", lambda m: by[("rabenseifner", m)] / by[("clairvoyant", m)])):
        values = [(ratio(m), m) for m in sizes]
        best = min(values)
        below = [m for r, m in values if r <= 1.0]
        span = f"[{min(below):.4g} B, {max(below):.4g} B]" if below else "none"
        print(f"- butterfly / Clairvoyant ({label}): minimum {best[0]:.3f} at m = {best[1]} B; "
              f"sizes with ratio ≤ 1 on this grid: {span}")


def m_fig12():
    P = 128
    algorithms = ["binomial", "rabenseifner", "ring", "radix_k", "clairvoyant"]
    fig, axes = plt.subplots(1, len(M_SIZES), figsize=(18, 4), sharey=True)
    fig13, axes13 = plt.subplots(1, len(M_SIZES), figsize=(18, 4), sharey=True)
    print("| m | algorithm | balanced [ms] | ratio to Clairvoyant at I = 0, 1, 2, 5 t_c | max normalised absorption |")
    print("|---|---|---|---|---|")
    for ax, ax13, m in zip(axes, axes13, M_SIZES):
        t_c = sim(alg="clairvoyant", procs=P, size=m, **CURIE)[0]["run_time_s"]
        fractions = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5]
        pap = ",".join(f"one-late:{x * t_c!r}" for x in fractions)
        rows = sim(alg=",".join(algorithms), procs=P, size=m, radix="4x4x8", pattern=pap, **CURIE)
        get = {(r["algorithm"], r["pattern"]): r for r in rows}
        paps = [f"one-late:{x * t_c!r}" for x in fractions]
        for name in algorithms:
            ratios = [get[(name, p)]["run_time_s"] / get[("clairvoyant", p)]["run_time_s"] for p in paps]
            ax.plot(fractions, ratios, marker="o", markersize=3, label=name)
            bal = get[(name, paps[0])]["run_time_s"]
            norm_imb = [get[(name, p)]["imbalance_s"] / bal for p in paps]
            norm_abs = [get[(name, p)]["absorption_s"] / bal for p in paps]
            ax13.plot(norm_imb, norm_abs, marker="o", markersize=3, label=name)
            picks = [ratios[fractions.index(x)] for x in (0, 1, 2, 5)]
            print(f"| {m // 1024} KiB | {name} | {bal * 1e3:.3f} | " + ", ".join(f"{v:.2f}" for v in picks) +
                  f" | {max(norm_abs):.2f} |")
        ax.set_title(f"m = {m // 1024} KiB")
        ax.set_xlabel("imbalance I / t_c (Clairvoyant balanced)")
        ax.grid(alpha=0.3)
        ax13.set_title(f"m = {m // 1024} KiB")
        ax13.set_xlabel("normalised imbalance I / t(balanced)")
        ax13.grid(alpha=0.3)
    axes[0].set_ylabel("runtime / Clairvoyant runtime")
    axes[0].legend(fontsize="small")
    axes13[0].set_ylabel("normalised absorption A / t(balanced)")
    axes13[0].legend(fontsize="small")
    save(fig, "m_fig12.png")
    save(fig13, "m_fig13.png")


# ---------------------------------------------------------------- [LL]

def ll_best_q(algorithm, p, m, ports, cost, limit):
    """Fastest run over q = 1, 2, 4, … (stops after two worse steps)."""
    best, worse, q = None, 0, 1
    while q <= min(m, limit):
        t = sim(alg=algorithm, procs=p, count=m, element_bytes=1, segments=q, ports=ports,
                **cost)[0]["run_time_s"]
        if best is None or t < best[0]:
            best, worse = (t, q), 0
        else:
            worse += 1
            if worse == 2:
                break
        q *= 2
    return best


def ll_standard(p, m, ports, cost):
    """[LL]'s standard algorithms at Table I/III's optimal segment size."""
    a, b, g = cost["alpha"], cost["beta"], cost["gamma"]
    N = ceil_log2(p + 1)
    uni = ports == "unidirectional"
    out = {"binomial": sim(alg="binomial", procs=p, count=m, element_bytes=1, ports=ports,
                           **cost)[0]["run_time_s"]}
    for name, denominator in (("chain", (p - 3 if uni else p - 2)), ("binary", (N - 3 if uni else N - 2))):
        if denominator <= 0:
            s = m
        else:
            s = math.sqrt((2 if uni else 1) * m * a / (denominator * (b + g)))
        q = max(1, min(m, round(m / max(1.0, s))))
        out[name] = sim(alg=name, procs=p, count=m, element_bytes=1, segments=q, ports=ports,
                        **cost)[0]["run_time_s"]
    return out


LL_UNI = dict(alpha=10, beta=1, gamma=0)


def ll_fig4():
    p = 64
    sizes = [2**k for k in range(2, 17)]
    table = []
    for m in sizes:
        standard = ll_standard(p, m, "unidirectional", LL_UNI)
        greedy, q = ll_best_q("uni_greedy", p, m, "unidirectional", LL_UNI, 4096)
        table.append((m, standard, greedy, q))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name in ("binomial", "chain", "binary"):
        left.plot(sizes, [s[name] / g for _, s, g, _ in table], marker="o", markersize=3, label=name)
        right.plot(sizes, [s[name] for _, s, _, _ in table], marker="o", markersize=3, label=name)
    right.plot(sizes, [g for _, _, g, _ in table], marker="o", markersize=3, label="uni_greedy", color="black")
    left.set_ylabel("time / uni_greedy time")
    right.set_ylabel("time [model units]")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size m [bytes]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    right.set_yscale("log")
    fig.suptitle("[LL] Fig. 4: p = 64, unidirectional, α = 10, β = 1, γ = 0")
    save(fig, "ll_fig4.png")
    print("| m [B] | binomial | chain | binary | uni_greedy (best q) | best standard / uni_greedy |")
    print("|---|---|---|---|---|---|")
    for m, s, g, q in table:
        print(f"| {m} | {s['binomial']:.0f} | {s['chain']:.0f} | {s['binary']:.0f} | {g:.0f} (q={q}) | "
              f"{min(s.values()) / g:.3f} |")


def ll_fig5(quick):
    procs = [2**k for k in range(2, 11 if not quick else 8)]
    sizes = [2**k for k in range(2, 17, 2)]
    grid = []
    for p in procs:
        line = []
        for m in sizes:
            standard = ll_standard(p, m, "unidirectional", LL_UNI)
            greedy, _ = ll_best_q("uni_greedy", p, m, "unidirectional", LL_UNI, 1024)
            line.append(min(standard.values()) / greedy)
        grid.append(line)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    image = ax.imshow(grid, origin="lower", cmap="Reds", vmin=1.0, aspect="auto")
    ax.set_xticks(range(len(sizes)), [f"$2^{{{int(math.log2(m))}}}$" for m in sizes])
    ax.set_yticks(range(len(procs)), [str(p) for p in procs])
    ax.set_xlabel("message size m [bytes]")
    ax.set_ylabel("p")
    for i, line in enumerate(grid):
        for j, v in enumerate(line):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(image, label="best standard / uni_greedy")
    ax.set_title("[LL] Fig. 5: α = 10, β = 1, γ = 0, unidirectional")
    save(fig, "ll_fig5.png")
    flat = [(v, procs[i], sizes[j]) for i, line in enumerate(grid) for j, v in enumerate(line)]
    best = max(flat)
    print(f"- largest ratio best-standard / uni_greedy: {best[0]:.3f} at p = {best[1]}, m = {best[2]} B; "
          f"smallest: {min(flat)[0]:.3f}")


LL_BI = dict(alpha=50000, beta=6, gamma=1)


def ll_fig6():
    p = 64
    sizes = [2**k for k in range(4, 25, 2)]
    n = ceil_log2(p)
    table = []
    for m in sizes:
        standard = ll_standard(p, m, "full_duplex", LL_BI)
        standard["rabenseifner"] = sim(alg="rabenseifner", procs=p, count=m, element_bytes=1,
                                       **LL_BI)[0]["run_time_s"]
        s = math.sqrt(m * LL_BI["alpha"] / ((n - 1) * (LL_BI["beta"] + LL_BI["gamma"])))
        q = max(1, min(m, round(m / max(1.0, s))))
        greedy = sim(alg="bi_greedy", procs=p, count=m, element_bytes=1, segments=q, **LL_BI)[0]["run_time_s"]
        reference = n * LL_BI["alpha"] + m * LL_BI["beta"] + (p - 1) / p * m * LL_BI["gamma"]
        table.append((m, standard, greedy, q, reference))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name in ("binomial", "chain", "binary", "rabenseifner"):
        left.plot(sizes, [s[name] / g for _, s, g, _, _ in table], marker="o", markersize=3, label=name)
        right.plot(sizes, [s[name] for _, s, _, _, _ in table], marker="o", markersize=3, label=name)
    right.plot(sizes, [g for _, _, g, _, _ in table], color="black", marker="o", markersize=3, label="bi_greedy")
    right.plot(sizes, [r for *_, r in table], color="grey", linestyle="--", label="lower-bound reference")
    left.set_ylabel("time / bi_greedy time")
    right.set_ylabel("time [model units]")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size m [bytes]")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    right.set_yscale("log")
    fig.suptitle("[LL] Fig. 6: p = 64, bidirectional, α = 50000, β = 6, γ = 1")
    save(fig, "ll_fig6.png")
    print("| m [B] | binomial | chain | binary | rabenseifner | bi_greedy (q) | best other / bi_greedy |")
    print("|---|---|---|---|---|---|---|")
    for m, s, g, q, _ in table:
        print(f"| {m} | {s['binomial']:.4g} | {s['chain']:.4g} | {s['binary']:.4g} | {s['rabenseifner']:.4g} | "
              f"{g:.4g} (q={q}) | {min(s.values()) / g:.3f} |")


def ll_bigreedy():
    """Rounds of bi_greedy vs ⌈log2 p⌉ + q − 1 (α = 1, β = γ = 0: time = rounds)."""
    failures, cases = [], 0
    for p in range(2, 65):
        rows = sim(alg="bi_greedy", procs=p, count=64, element_bytes=1, segments="1:16:+1",
                   alpha=1, beta=0, gamma=0)
        for row in rows:
            cases += 1
            q = row["segments"]
            expected = ceil_log2(p) + q - 1
            if abs(row["run_time_s"] - expected) > 1e-9:
                failures.append((p, q, row["run_time_s"], expected))
    print(f"- bi_greedy, p = 2…64, q = 1…16 ({cases} cases): time ≠ ⌈log2 p⌉ + q − 1 rounds in "
          f"{len(failures)} cases")
    if failures:
        print("\n| p | q | simulated rounds | ⌈log2 p⌉ + q − 1 |\n|---|---|---|---|")
        for p, q, got, expected in failures[:40]:
            print(f"| {p} | {q} | {got:g} | {expected} |")
        if len(failures) > 40:
            print(f"| … | | {len(failures) - 40} more | |")


# ---------------------------------------------------------------- [PA]

PA_COST = dict(alpha=50e-6, beta=8e-9, gamma=5e-10)  # 1 Gb/s Ethernet, 48 nodes


def pa_onelate():
    P, m = 48, 4 * 2**20  # 1 M floats
    delays_ms = [0, 1, 5, 10, 50, 100, 500, 1000]
    algorithms = ["ring", "rabenseifner", "linear_tree", "slt", "prr"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
    for ax, late in zip(axes, (P - 1, 0)):
        paps = [f"one-late:{d}ms:{late}" for d in delays_ms]
        rows = sim(coll="allreduce", alg=",".join(algorithms), procs=P, size=m, pattern=",".join(paps),
                   **PA_COST)
        get = {(r["algorithm"], r["pattern"]): r["avg_elapsed_s"] for r in rows}
        print(f"\nRank {late} late:\n")
        print("| algorithm | " + " | ".join(f"{d} ms" for d in delays_ms) + " |")
        print("|---|" + "---|" * len(delays_ms))
        for name in algorithms:
            print(f"| {name} ē [ms] | " + " | ".join(f"{get[(name, p)] * 1e3:.1f}" for p in paps) + " |")
            print(f"| {name} speed-up vs ring | " +
                  " | ".join(f"{get[('ring', p)] / get[(name, p)]:.2f}" for p in paps) + " |")
            ax.plot([max(d, 0.3) for d in delays_ms], [get[("ring", p)] / get[(name, p)] for p in paps],
                    marker="o", label=name)
        ax.set_xscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("delay [ms] (0 plotted at 0.3)")
        ax.set_title(f"rank {late} late")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("speed-up vs ring (average elapsed ē)")
    axes[0].legend(fontsize="small")
    fig.suptitle("[PA] Table 3 in the model: P = 48, 1 M floats, α = 50 µs, β = 8 ns/B, γ = 0.5 ns/B")
    save(fig, "pa_onelate.png")


SECTIONS = dict(m_table3=m_table3, m_fig10=m_fig10, m_fig12=m_fig12, ll_fig4=ll_fig4, ll_fig5=None,
                ll_fig6=ll_fig6, ll_bigreedy=ll_bigreedy, pa_onelate=pa_onelate)


def main():
    global SIM, OUT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sim", required=True)
    parser.add_argument("--out", default="docs/results/img")
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--quick", action="store_true", help="smaller Fig. 5 grid")
    args = parser.parse_args()
    SIM, OUT = args.sim, args.out
    for name in args.only.split(","):
        print(f"\n### {name}\n")
        sys.stdout.flush()
        if name == "ll_fig5":
            ll_fig5(args.quick)
        else:
            SECTIONS[name]()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
