#!/usr/bin/env python3
"""The papers' remaining model items with patcoll-sim (issue 13 item 6).

usage: reproduce_models.py --sim build/bin/patcoll-sim [--out docs/results/img] [--only NAME,...]

Sections (docs/results/reproductions.md quotes the Markdown this prints; PNGs go to --out):
  m_table1   [M] Table 1: the lower bounds (latency, bandwidth, computation) of
             reduce and gather, against every algorithm's three terms, each
             simulated alone (the other two parameters zero)
  ll_table2  [LL] Table II: the same for the unidirectional model, with
             [LL]'s per-algorithm bounds (q = 1 for latency, s = 1 for the others)
  m_fig6     [M] Fig. 6: maximum normalised absorption of Clairvoyant vs m and N
             (Table 3 formula, Prop. 3.7, and simulated balanced run times)
  m_table8   [M] Table 8: N_opt of the linear model vs the best N in the simulator
  ll_fig1    [LL] Fig. 1: where binomial / pipeline / binary is best over (p, m),
             formulas (Table I) and simulated, α = 10, β = 1, γ = 0
  ll_fig7    [LL] Fig. 7: β/γ below which butterfly beats bi-greedy for some m
  ps_eq21    [PS] eq. (21) vs sbn gather beyond rank 1 late: every late rank, and
             random arrivals

The simulator runs the same Programs the MPI library executes (--no-overlap:
the papers' model, as in reproduce_sim.py, whose helpers this reuses).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reproduce_sim as rs  # noqa: E402  (sim(), save(), formulas, [LL] helpers)
from matplotlib.colors import ListedColormap  # noqa: E402
from reproduce_sim import CURIE, ceil_log2, plt, sim  # noqa: E402

TINY = 1e-15  # patcoll-sim needs α > 0; a latency this small is zero at the printed precision


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    print()


def terms(options, alpha, beta, gamma):
    """The run time split into its α, β and γ terms: three simulations with one parameter each."""
    out = []
    for a, b, g in ((alpha, 0, 0), (TINY, beta, 0), (TINY, 0, gamma)):
        out.append(sim(**options, alpha=a, beta=b, gamma=g)[0]["run_time_s"])
    return out


# ------------------------------------------------------------------ [M] Table 1

def m_table1():
    P, m = 128, 4 * 2**20
    a, b, g = CURIE["alpha"], CURIE["beta"], CURIE["gamma"]
    n = ceil_log2(P)
    f = (P - 1) / P
    bounds = (n * a, m * b, f * m * g)
    clair_n = max(1, round(math.sqrt((n - 1) * m * (b + g) / a)))
    algorithms = [("binomial", {}), ("binary", {"segments": 64}), ("chain", {"segments": rs.chain_segments(P, m, a, b, g)}),
                  ("ring", {}), ("rabenseifner", {}), ("radix_k", {"radix": "4x4x8"}),
                  ("clairvoyant", {"segments": clair_n}), ("bi_greedy", {"segments": clair_n})]
    rows, meets = [], {}
    for name, extra in algorithms:
        t = terms(dict(alg=name, procs=P, size=m, **extra), a, b, g)
        ratios = [x / y for x, y in zip(t, bounds)]
        meets[name] = ratios
        seg = extra.get("segments", "-")
        rows.append([name, seg] + ["%.4g (%.2f×)" % (x * 1e3, r) for x, r in zip(t, ratios)])
    print("Reduce, P = 128, m = 4 MiB, CURIE α, β, γ ([M] Fig. 10). Each term simulated alone "
          "(the other parameters 0); in brackets the term over [M] Table 1's bound:\n")
    table(["algorithm", "segments", "latency [ms] (÷ nα)", "bandwidth [ms] (÷ mβ)", "computation [ms] (÷ (P−1)/P·mγ)"],
          [["**Table 1 bound**", "", "%.4g" % (bounds[0] * 1e3), "%.4g" % (bounds[1] * 1e3), "%.4g" % (bounds[2] * 1e3)]]
          + rows)
    below = [(k, i) for k, v in meets.items() for i, r in enumerate(v) if r < 1 - 1e-9]
    all_three = [k for k, v in meets.items() if all(abs(r - 1) < 1e-6 for r in v)]
    print("- terms below a bound: %s; algorithms meeting all three bounds: %s\n"
          % (below or "none", all_three or "none"))
    # Gather: nα and (P−1)/P·mβ (m = all the data).
    mg = 4 * 2**20
    per_rank = mg // P
    rows = []
    gbounds = (n * a, f * mg * b)
    for name in ("linear", "linear_sync", "binomial", "sls", "sbn"):
        t = terms(dict(coll="gather", alg=name, procs=P, size=per_rank), a, b, 0)[:2]
        rows.append([name] + ["%.4g (%.2f×)" % (x * 1e3, x / y) for x, y in zip(t, gbounds)])
    print("Gather, P = 128, 4 MiB in all (32 KiB per rank), same machine:\n")
    table(["algorithm", "latency [ms] (÷ nα)", "bandwidth [ms] (÷ (P−1)/P·mβ)"],
          [["**Table 1 bound**", "%.4g" % (gbounds[0] * 1e3), "%.4g" % (gbounds[1] * 1e3)]] + rows)


# ----------------------------------------------------------------- [LL] Table II

def ll_table2():
    m = 64  # bytes = elements (1-byte elements), so s = 1 is possible
    rows = []
    for p in (15, 16, 64):
        L = ceil_log2(p)
        N = ceil_log2(p + 1)
        formula = {
            "bound": (L, 2 * m, (p - 1) / p * m),
            "binomial": (L, L * m, L * m),
            "chain": (p - 1, p + 2 * m - 3, p + 2 * m - 3),
            "binary": (2 * (N - 1), 2 * (N + 2 * m - 3), 2 * (N + 2 * m - 3)),
        }
        for name in ("binomial", "chain", "binary", "uni_greedy"):
            base = dict(alg=name, procs=p, count=m, element_bytes=1, ports="unidirectional")
            latency = sim(**base, segments=1, alpha=1, beta=0, gamma=0)[0]["run_time_s"]
            s1 = {} if name == "binomial" else {"segments": m}
            bandwidth = sim(**base, **s1, alpha=TINY, beta=1, gamma=0)[0]["run_time_s"]
            computation = sim(**base, **s1, alpha=TINY, beta=0, gamma=1)[0]["run_time_s"]
            ll = formula.get(name)
            cells = []
            for i, value in enumerate((latency, bandwidth, computation)):
                bound = formula["bound"][i]
                mark = "" if value >= bound - 1e-9 else " **below the bound**"
                cells.append("%.4g / %s%s" % (value, "%.4g" % ll[i] if ll else "–", mark))
            rows.append([p, name] + cells)
        rows.append([p, "*[LL] lower bound*", "%d" % L, "%d" % (2 * m), "%.4g" % ((p - 1) / p * m)])
    print("Unidirectional, m = 64 (1-byte elements), α, β, γ = 1 one at a time (the others 0). "
          "Latency with q = 1, bandwidth and computation with s = 1 (q = m) as [LL] derives its "
          "per-algorithm bounds (binomial is unsegmented). Each cell: simulated / [LL] Table II:\n")
    table(["p", "algorithm", "latency [α]", "bandwidth [β]", "computation [γ]"], rows)


# ------------------------------------------------------------------ [M] Fig. 6

def clair_time(P, m, N, a, b, g):
    """[M] Table 3: Clairvoyant, balanced: (n + N − 1)·(α + (m/N)(β + γ))."""
    return (ceil_log2(P) + N - 1) * (a + m / N * (b + g))


def max_absorption(m, N):
    """The simulator's largest normalised absorption of Clairvoyant (P = 128, N segments), rank 127 late
    by 0.05 … 1.5 t_c (t_c = its balanced run time); [M] Def. 3.6."""
    rounds = ceil_log2(128) + N - 1
    paps = ",".join("one-late:%gd" % (rounds * k / 20) for k in range(1, 31))
    rows = sim(alg="clairvoyant", procs=128, size=m, segments=N, pattern=paps, **CURIE)
    return max(r["absorption_s"] / r["balanced_run_time_s"] for r in rows)


def m_fig6():
    a, b, g = CURIE["alpha"], CURIE["beta"], CURIE["gamma"]
    n = ceil_log2(128)
    elements = [2**k for k in range(6, 25)]  # [M]'s x axis: multiples of 4 bytes
    segs = [1, 2, 4, 8, 16, 32, 64, 128]

    def one_message(m):  # t2 of [M] §5.3: the late process's vector in one message, combined at the root
        return a + m * (b + g)

    def optimal_two_way(m):  # min(t1, t2), [M] §5.3
        return min(2 * a + m * b + m * g / 2, one_message(m))

    fig, ax = plt.subplots(figsize=(8.5, 5))
    for N in segs:
        ys = []
        for e in elements:
            t128 = clair_time(128, 4 * e, N, a, b, g)
            ys.append((t128 - one_message(4 * e)) / t128 if N <= e else float("nan"))
        ax.plot(elements, ys, marker=".", lw=1, label="N = %d" % N)
    black = []
    for e in elements:
        m = 4 * e
        N = max(1, round(math.sqrt((n - 1) * m * (b + g) / a)))
        t128 = clair_time(128, m, N, a, b, g)
        black.append((t128 - optimal_two_way(m)) / t128)
    ax.plot(elements, black, color="black", lw=2, label="Prop. 3.7 bound (N_opt, optimal 2-way)")
    measured = {}
    for N in (4, 16, 64):
        pts = [(e, max_absorption(4 * e, N)) for e in elements[::3] if e >= N]
        measured[N] = pts
        ax.plot([x for x, _ in pts], [y for _, y in pts], ls="none", marker="x", color="grey")
    ax.plot([], [], ls="none", marker="x", color="grey", label="simulated max over delays (N = 4, 16, 64)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("problem size [multiples of 4 bytes]")
    ax.set_ylabel("max normalised absorption")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("[M] Fig. 6: Clairvoyant, P = 128, CURIE α, β, γ (curves: 2-way = one message)")
    rs.save(fig, "m_fig6.png")
    switch = 2 * a / g
    print("- the optimal 2-way reduction switches from one message (t2) to reduce-scatter + gather (t1) at "
          "m = 2α/γ = %.0f B = %.0f elements of 4 B ([M]: \"near m = 10 KiB\")" % (switch, switch / 4))
    rows = []
    for label, m in M8_SIZES:
        N = max(1, round(math.sqrt((n - 1) * m * (b + g) / a)))
        t128 = clair_time(128, m, N, a, b, g)
        rows.append([label, N, "%.3f" % ((t128 - optimal_two_way(m)) / t128),
                     "%.3f" % ((t128 - one_message(m)) / t128),
                     "%.3f" % ((t128 - clair_time(2, m, N, a, b, g)) / t128),
                     "%.3f" % max_absorption(m, N)])
    print()
    table(["m", "N_opt", "Prop. 3.7 bound (optimal 2-way)", "2-way = one message", "2-way = Clairvoyant, same N",
           "simulated max (rank 127 late)"], rows)
    over = [(N, e, y) for N, pts in measured.items() for e, y in pts
            if y > (clair_time(128, 4 * e, N, a, b, g) - optimal_two_way(4 * e)) / clair_time(128, 4 * e, N, a, b, g) + 1e-9]
    print("- simulated maxima above the Prop. 3.7 bound of their own N: %s\n" % (over or "none"))


# ------------------------------------------------------------------ [M] Table 8

M8_SIZES = [("128 KiB", 128 * 1024), ("512 KiB", 512 * 1024), ("2 MiB", 2 * 2**20), ("4 MiB", 4 * 2**20),
            ("40 MiB", 40 * 2**20)]
M8_PAPER = {"model": [13.2, 27.3, 54.7, 77.39, 244.75], "empirical": [16, 8, 16, 16, 40]}


def m_table8():
    a, b, g = CURIE["alpha"], CURIE["beta"], CURIE["gamma"]
    n = ceil_log2(128)
    rows = []
    for i, (label, m) in enumerate(M8_SIZES):
        n_opt = math.sqrt((n - 1) * m * (b + g) / a)
        n_opt_kb = math.sqrt((n - 1) * m * 1000 / 1024 * (b + g) / a)
        candidates = [2, 4, 8, 16, 32, 64, 128] + ([40, 80] if m >= 40 * 2**20 else [])
        runs = sim(alg="clairvoyant", procs=128, size=m, segments=",".join(map(str, candidates)), **CURIE)
        best = min(runs, key=lambda r: r["run_time_s"])
        fine = sim(alg="clairvoyant", procs=128, size=m,
                   segments="%d:%d:+1" % (max(1, int(n_opt) - 6), int(n_opt) + 6), **CURIE)
        best_fine = min(fine, key=lambda r: r["run_time_s"])
        paper_best = next(r for r in runs if r["segments"] == M8_PAPER["empirical"][i])
        rows.append([label, "%.2f" % M8_PAPER["model"][i], "%.2f" % n_opt, "%.2f" % n_opt_kb,
                     "%d (%.3f ms)" % (best["segments"], best["run_time_s"] * 1e3),
                     "%d" % best_fine["segments"], M8_PAPER["empirical"][i],
                     "%.2f" % (paper_best["run_time_s"] / best["run_time_s"])])
    print("P = 128, CURIE α, β, γ, balanced. N_opt = sqrt((n−1)·m·(β+γ)/α) with m in bytes (1 KiB = 1024 B) "
          "and with 1 KiB = 1000 B; the simulator's best N over [M]'s candidates {2, 4, …, 128} (+40, 80 at "
          "40 MiB) and over every integer near N_opt; last column: the model's run time at [M]'s empirical N "
          "over the model's best:\n")
    table(["m", "[M] model", "N_opt (KiB = 1024 B)", "N_opt (KiB = 1000 B)", "simulated best of {2…128}",
           "simulated best integer", "[M] empirical", "t(N_emp) / t(best)"], rows)


# --------------------------------------------------------------- [LL] Fig. 1, 7

def ll_table1_uni(p, m, a, b, g):
    """[LL] Table I optimal times (unidirectional), s clipped to [1, m] and q to whole segments."""
    N = ceil_log2(p + 1)
    out = {"binomial": ceil_log2(p) * (a + m * (b + g))}

    def best(rounds, denominator):
        s = m if denominator <= 0 else math.sqrt(2 * m * a / (denominator * (b + g)))
        q = max(1, min(m, round(m / max(1.0, s))))
        return rounds(q) * (a + m / q * (b + g)), q

    out["chain"], qc = best(lambda q: (p - 1) + 2 * (q - 1), p - 3)
    out["binary"], qb = best(lambda q: 2 * (N - 1) + 4 * (q - 1), N - 3)
    return out, {"chain": qc, "binary": qb}


def ll_fig1():
    cost = dict(alpha=10, beta=1, gamma=0)
    procs = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    sizes = [2**k for k in range(2, 17)]
    names = ["binomial", "chain", "binary"]
    formula_grid, sim_grid, agree = [], [], 0
    for p in procs:
        fl, sl = [], []
        for m in sizes:
            f, _ = ll_table1_uni(p, m, cost["alpha"], cost["beta"], cost["gamma"])
            s = rs.ll_standard(p, m, "unidirectional", cost)
            fl.append(names.index(min(f, key=f.get)))
            sl.append(names.index(min(s, key=s.get)))
            agree += fl[-1] == sl[-1]
        formula_grid.append(fl)
        sim_grid.append(sl)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    cmap = ListedColormap(["tab:blue", "tab:orange", "tab:green"])
    for ax, grid, title in ((axes[0], formula_grid, "Table I formulas"), (axes[1], sim_grid, "simulated Programs")):
        ax.imshow(grid, origin="lower", cmap=cmap, vmin=0, vmax=2, aspect="auto")
        ax.set_xticks(range(len(sizes)), ["$2^{%d}$" % int(math.log2(m)) for m in sizes], fontsize=7)
        ax.set_yticks(range(len(procs)), [str(p) for p in procs])
        ax.set_xlabel("message size m [bytes]")
        ax.set_title(title)
        for i, line in enumerate(grid):
            for j, v in enumerate(line):
                ax.text(j, i, ["bn", "pl", "bi"][v], ha="center", va="center", fontsize=6)
    axes[0].set_ylabel("p")
    fig.suptitle("[LL] Fig. 1: best of binomial (bn) / pipeline (pl) / binary (bi), α = 10, β = 1, γ = 0, "
                 "unidirectional, s_opt of Table I")
    rs.save(fig, "ll_fig1.png")
    print("- formula and simulation pick the same algorithm in %d of %d cells" % (agree, len(procs) * len(sizes)))
    for label, grid in (("formulas", formula_grid), ("simulated", sim_grid)):
        edges = []
        for p, line in zip(procs, grid):
            first_binary = next((sizes[j] for j, v in enumerate(line) if v == 2), None)
            first_chain = next((sizes[j] for j, v in enumerate(line) if v == 1), None)
            edges.append("p = %d: binary from %s, pipeline from %s" % (p, first_binary or "never", first_chain or "never"))
        print("- %s: %s" % (label, "; ".join(edges)))
    print()


def butterfly_time(p, m, a, b, g):
    """[LL] Table III butterfly (reduce-scatter/gather)."""
    return 2 * ceil_log2(p) * a + 2 * (p - 1) / p * b * m + (p - 1) / p * g * m


def bigreedy_time(p, m, a, b, g):
    """[LL] Table III bi-greedy at the best whole number of segments."""
    L = ceil_log2(p)
    s = math.sqrt(m * a / max(1e-300, (L - 1) * (b + g))) if L > 1 else m
    q0 = max(1, round(m / max(1e-12, s)))
    return min((L + q - 1) * (a + m / q * (b + g)) for q in {max(1, q0 - 1), q0, q0 + 1})


def butterfly_wins_somewhere(p, ratio):
    a, g = 1.0, 1.0
    b = ratio * g
    return any(butterfly_time(p, m, a, b, g) < bigreedy_time(p, m, a, b, g)
               for m in (10 ** (k / 20) for k in range(-20, 200)))


def critical_ratio(p):
    """The largest β/γ at which butterfly beats bi-greedy for some m (bisection)."""
    lo, hi = 0.0, 64.0
    if not butterfly_wins_somewhere(p, 1e-6):
        return 0.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if butterfly_wins_somewhere(p, mid):
            lo = mid
        else:
            hi = mid
    return lo


def ll_fig7():
    procs = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    ratios = [critical_ratio(p) for p in procs]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(procs, ratios, marker="o", color="tab:blue", label="Table III formulas")
    # Simulated check at p = 16 and 64, just below and above the line: rabenseifner vs bi_greedy
    # (its best q near s_opt) with [LL] Fig. 6's α = 50000, γ = 1, at the sizes where the formulas
    # say butterfly comes closest (the region is narrow: m·γ of the order of α).
    checks = []
    alpha = 50000.0
    for p in (16, 64):
        r = ratios[procs.index(p)]
        for factor in (0.8, 1.25):
            beta = r * factor
            cost = dict(alpha=alpha, beta=beta, gamma=1.0)
            grid = [alpha * 10 ** (k / 40) for k in range(-80, 120)]
            m_star = min(grid, key=lambda m: butterfly_time(p, m, alpha, beta, 1) / bigreedy_time(p, m, alpha, beta, 1))
            won = []
            for m in sorted({int(m_star * f) for f in (0.5, 0.7, 1.0, 1.4, 2.0)}):
                bf = sim(alg="rabenseifner", procs=p, count=m, element_bytes=1, **cost)[0]["run_time_s"]
                L = ceil_log2(p)
                q0 = max(1, round(m / max(1.0, math.sqrt(m * alpha / ((L - 1) * (beta + 1))))))
                qs = sorted({max(1, q0 - 1), q0, q0 + 1})
                bg = min(x["run_time_s"] for x in sim(alg="bi_greedy", procs=p, count=m, element_bytes=1,
                                                     segments=",".join(str(min(q, m)) for q in qs), **cost))
                won.append((m, bf < bg, bf / bg))
            checks.append((p, factor, beta, won))
            ax.plot([p], [beta], marker="v" if any(w for _, w, _ in won) else "^", color="black", ls="none")
    ax.plot([], [], marker="v", color="black", ls="none", label="simulated: butterfly wins at some m")
    ax.plot([], [], marker="^", color="black", ls="none", label="simulated: bi-greedy always wins")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("p")
    ax.set_ylabel("β / γ")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("[LL] Fig. 7: below the line butterfly beats bi-greedy for some m")
    rs.save(fig, "ll_fig7.png")
    table(["p"] + [str(p) for p in procs], [["critical β/γ"] + ["%.2f" % r for r in ratios]])
    for p, factor, beta, won in checks:
        wins = [m for m, w, _ in won if w]
        best = min(won, key=lambda x: x[2])
        print("- simulated, p = %d, β/γ = %.2f (%.2f × critical): butterfly faster at m = %s; best butterfly / "
              "bi-greedy %.3f at m = %d" % (p, beta, factor, wins or "none", best[2], best[0]))
    print()


# ------------------------------------------------------------------- [PS] eq. 21

def ps_eq21():
    a, b = 50e-6, 8e-9  # [PS]'s emulated 1 Gb/s cluster (reproduce_ps.py)
    cost = dict(alpha=a, beta=b, gamma=0, ports="unidirectional")
    rows = []
    for P in (8, 13, 48):
        per_rank = 2 * 2**20 * 4 // 48  # [PS]: 2 Mi floats in all at P = 48
        base = sim(coll="gather", alg="binomial,sbn", procs=P, size=per_rank, **cost)
        r_bn = {x["algorithm"]: x["run_time_s"] for x in base}["binomial"]
        for D in (1e-3, 20e-3):
            worst = {"binomial": 0.0, "sbn": 0.0}
            exact = {"binomial": 0, "sbn": 0}
            paps = ",".join("one-late:%g:%d" % (D, k) for k in range(1, P))
            res = sim(coll="gather", alg="binomial,sbn", procs=P, size=per_rank, pattern=paps, **cost)
            for x in res:
                eq21 = D + r_bn
                dev = x["run_time_s"] / eq21 - 1
                worst[x["algorithm"]] = max(worst[x["algorithm"]], abs(dev))
                exact[x["algorithm"]] += abs(dev) < 1e-9
            rows.append([P, "one late, every rank k = 1…%d" % (P - 1), "%g ms" % (D * 1e3),
                         "%d / %d exact, max |dev| %.3f" % (exact["binomial"], P - 1, worst["binomial"]),
                         "%d / %d exact, max |dev| %.3f" % (exact["sbn"], P - 1, worst["sbn"])])
        for D in (1e-3, 20e-3, 100e-3):
            # 20 PAPs: one rand-late pattern per seed, the same for both algorithms
            ratios, over = [], {"binomial": [], "sbn": []}
            for seed in range(1, 21):
                res = sim(coll="gather", alg="binomial,sbn", procs=P, size=per_rank,
                          pattern="rand-late:%g" % D, seed=seed, **cost)
                t = {x["algorithm"]: x for x in res}
                bound = t["binomial"]["imbalance_s"] + r_bn
                ratios.append(t["sbn"]["run_time_s"] / t["binomial"]["run_time_s"])
                for alg in over:
                    over[alg].append(t[alg]["run_time_s"] / bound)
            rows.append([P, "all random, 20 PAPs", "%g ms" % (D * 1e3),
                         "r / (I + r_BN): %.3f–%.3f" % (min(over["binomial"]), max(over["binomial"])),
                         "r / (I + r_BN): %.3f–%.3f; sbn / bnom %.3f–%.3f" % (min(over["sbn"]), max(over["sbn"]),
                                                                             min(ratios), max(ratios))])
    print("Gather, [PS]'s emulated 1 Gb/s cluster (α = 50 µs, β = 8 ns/B, unidirectional as [PS] counts), "
          "2 Mi floats in all at P = 48 (the same 43 690 floats per rank at P = 8, 13). Eq. (21) generalised: "
          "r = a_k − a_0 + r_BN for whichever rank k is late; for random PAPs the analogue is I + r_BN "
          "(I = max a − min a):\n")
    table(["P", "PAP", "D", "bnom vs eq. (21)", "sbn vs eq. (21)"], rows)


SECTIONS = {"m_table1": m_table1, "ll_table2": ll_table2, "m_fig6": m_fig6, "m_table8": m_table8,
            "ll_fig1": ll_fig1, "ll_fig7": ll_fig7, "ps_eq21": ps_eq21}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sim", required=True)
    parser.add_argument("--out", default="docs/results/img")
    parser.add_argument("--only", default=",".join(SECTIONS))
    args = parser.parse_args()
    rs.SIM, rs.OUT = args.sim, args.out
    for name in args.only.split(","):
        print("\n### %s\n" % name)
        sys.stdout.flush()
        SECTIONS[name]()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
