#!/usr/bin/env python3
"""The papers' experimental tables with the real library under SimGrid SMPI.

usage: reproduce_smpi.py [--smpi scripts/smpi.sh] [--out docs/results/img] [--work DIR]
                         [--only pa3,pa4,ps,m4,m12,po,scale] [--reuse] > numbers.md

Runs patcoll-bench through scripts/smpi.sh on the simulated clusters
(smpi/platforms/), prints Markdown tables with the papers' printed values
side by side, and writes PNGs (smpi_*.png) to --out. Every run's JSON lines
are kept in --work; --reuse skips runs whose file exists (re-run without it
after the library changes). SMPI is deterministic, so one random PAP per
iteration with a fixed seed gives the same numbers on every machine.

Each platform's cost model is measured first (patcoll-calibrate under SMPI,
results/smpi/model-PLATFORM.txt) and given to every run as PATCOLL_MODEL:
PAT-aware algorithms (prr, clairvoyant) decide with the simulated cluster's
α, β, γ.

Experiments (`--only`):
  pa3   [PA] Table 3: allreduce, P = 48 (tryton48), 1 Mi floats, rank 1 late
        by 0-1000 ms; average elapsed time e, speed-up vs ring.
  pa4   [PA] Table 4: prr vs ring, 128 Ki-8 Mi floats, rank 1 late and all
        ranks random (uniform in [0, D]); e difference and speed-up.
  ps    [PS] Tables 3/4 and Fig. 14/15 with the foreground algorithms:
        scatter linear/slin/binomial/sbn, gather linear/linear_sync/sls/binomial/sbn, P = 48,
        128 Ki-2 Mi floats in all, all ranks random; mean run time.
  m4    [M] Table 4: reduce, P = 128 (curie128), 4 MiB, balanced.
  m12   [M] Fig. 12/13: reduce, P = 128, rank 127 late by 0..4 t_c,
        128 KiB / 512 KiB / 2 MiB / 4 MiB; runtime relative to Clairvoyant
        and normalised absorption.
  po    [PO] Figs. 10/11: reduce on tryton48 (1 GbE), all ranks random;
        Fig. 10: P = 48, 512 Ki floats, max delay 0-500 ms; Fig. 11:
        P = 4-48, 128 Ki floats, max delay 50 ms; mean run time ± σ.
  scale wall time and peak memory (RSS from /usr/bin/time -v, PSS sampled
        from /proc) at P = 128 and 1024 on fattree1024, buffers and executor
        scratch in SMPI shared malloc (result check off); not in the default
        --only (it measures this machine, not the simulated cluster).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---- the papers' printed values ------------------------------------------

PA_DELAYS_MS = [0, 1, 5, 10, 50, 100, 500, 1000]
# [PA] Table 3: e [ms], 1 Mi floats, one process late, P = 48.
PA_TABLE3 = {
    "ring": [67.8, 67.6, 70.1, 75.6, 115.9, 165.5, 558.6, 1047.0],
    "rabenseifner": [76.3, 75.9, 82.9, 85.7, 125.0, 181.6, 572.0, 1061.8],
    "slt": [90.3, 90.3, 89.7, 89.7, 101.0, 149.8, 542.1, 1031.9],
    "prr": [70.9, 70.8, 71.1, 73.0, 101.0, 149.7, 541.7, 1031.5],
}
# [PA] Table 4: speed-up e(ring) / e(prr), rows = size in Ki floats.
PA_TABLE4 = {
    "one-late:1": {
        128: [0.85, 0.78, 1.53, 1.26, 1.08, 1.03, 1.00, 1.00],
        512: [1.04, 1.01, 1.37, 1.41, 1.26, 1.10, 1.00, 1.00],
        1024: [0.96, 0.95, 0.98, 1.04, 1.14, 1.10, 1.03, 1.02],
        2048: [0.93, 0.94, 0.97, 1.02, 1.06, 1.13, 1.05, 1.03],
        4096: [0.96, 0.97, 0.97, 0.99, 1.10, 1.12, 1.06, 1.04],
        8192: [0.98, 0.95, 0.96, 0.97, 1.08, 1.14, 1.10, 1.07],
    },
    "rand-late": {
        128: [0.82, 0.85, 1.11, 1.09, 1.09, 1.02, 1.00, 1.00],
        512: [0.91, 1.01, 1.37, 1.35, 1.38, 1.18, 1.01, 1.01],
        1024: [0.96, 0.95, 0.98, 0.99, 1.17, 1.13, 1.05, 1.03],
        2048: [0.94, 0.92, 0.96, 0.97, 1.08, 1.16, 1.07, 1.04],
        4096: [0.97, 1.00, 0.98, 0.97, 1.11, 1.09, 1.11, 1.06],
        8192: [0.96, 0.95, 0.98, 0.98, 1.00, 1.10, 1.15, 1.10],
    },
}
PS_DELAYS_MS = [0, 1, 5, 10, 50, 100, 500]
PS_SIZES_KI = [128, 256, 512, 1024, 2048]  # Ki floats in all (per rank: / 48)
# [PS] Table 3: r(LIN) / r(BSLN); Table 4: r(LS) / r(BSLS).
PS_TABLE3 = {
    128: [1.02, 1.20, 1.01, 1.01, 1.00, 1.00, 1.00],
    256: [0.85, 1.12, 1.01, 1.01, 1.00, 1.00, 1.00],
    512: [1.06, 0.94, 1.02, 1.01, 1.00, 1.00, 1.00],
    1024: [0.99, 1.03, 1.02, 1.08, 1.27, 1.15, 1.04],
    2048: [1.02, 1.03, 1.02, 1.03, 1.15, 1.21, 1.08],
}
PS_TABLE4 = {
    128: [1.13, 1.13, 1.68, 1.52, 1.09, 1.03, 1.01],
    256: [1.17, 1.14, 1.63, 1.61, 1.10, 1.04, 1.01],
    512: [1.12, 1.05, 1.57, 1.51, 1.10, 1.04, 1.01],
    1024: [0.79, 1.07, 0.86, 0.83, 2.40, 1.74, 1.14],
    2048: [1.23, 0.69, 0.81, 0.78, 2.52, 1.98, 1.18],
}
# [PS] §5.2 text, 2 Mi floats: mean run time [ms] at D = 0 and 50 ms.
PS_TEXT = {"lin": (65, 104), "slin": (64, 94), "bsln": (64, 91)}
# [M] Table 4: reduce, 4 MiB, P = 128, balanced, CURIE [s].
M_TABLE4 = {"binomial": 0.034, "rabenseifner": 0.0089, "native": 0.011, "ring": 0.0083,
            "chain": 0.0061, "radix_k": 0.0085}
# ints, [M]'s sizes; 40 MiB runs with shared-malloc buffers (128 ranks x 40 MiB x 3 buffers would
# not fit in memory; the result check is then off, the simulated time unchanged)
M_SIZES = {"128KiB": 32 * 1024, "512KiB": 128 * 1024, "2MiB": 512 * 1024, "4MiB": 1024 * 1024,
           "40MiB": 10 * 1024 * 1024}
M_SHARED_FROM = 8 * 1024 * 1024  # elements
M_ALGORITHMS = ["binomial", "rabenseifner", "ring", "radix_k", "clairvoyant"]
M_IMBALANCE_TC = [0, 0.5, 1, 2, 4]


class Runner:
    def __init__(self, smpi, work, reuse):
        self.smpi, self.work, self.reuse = smpi, work, reuse
        self.wall = {}
        self.models = {}

    def model(self, platform):
        """The cost model measured on `platform` (patcoll-calibrate under SMPI, 2 ranks), so that
        PAT-aware algorithms decide with the simulated cluster's α, β, γ, not the default CURIE ones."""
        if platform not in self.models:
            path = os.path.join(self.work, "model-%s.txt" % platform)
            if not (self.reuse and os.path.exists(path)):
                subprocess.run([self.smpi, "--platform", platform, "-np", "2", "--calibrate", "--", "--out", path],
                               check=True, capture_output=True, text=True)
            self.models[platform] = path
        return self.models[platform]

    def run(self, name, platform, procs, bench_args, smpi_args=()):
        """JSON records of one smpi.sh run (cached in work/name.jsonl)."""
        out = os.path.join(self.work, name + ".jsonl")
        if not (self.reuse and os.path.exists(out)):
            command = [self.smpi, "--platform", platform, "-np", str(procs), *smpi_args, "--",
                       *bench_args, "--quiet", "--out", out + ".tmp"]
            print("+ " + " ".join(command), file=sys.stderr, flush=True)
            started = time.time()
            env = dict(os.environ, PATCOLL_MODEL=self.model(platform))
            p = subprocess.run(command, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
                raise SystemExit("reproduce_smpi: run %s failed (exit %d)" % (name, p.returncode))
            os.replace(out + ".tmp", out)
            self.wall[name] = time.time() - started
        with open(out) as f:
            return [json.loads(line) for line in f if line.strip()]


def mean_of(records, field, **match):
    values = [r[field] for r in records if all(r[k] == v for k, v in match.items())]
    if not values:
        raise KeyError("no records for %s" % match)
    return statistics.mean(values)


def pct(ours, theirs):
    return "%+.0f %%" % (100.0 * (ours - theirs) / theirs)


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


# ---- [PA] ------------------------------------------------------------------

def pa3(runner, out, algorithms):
    algs = [a for a in ["ring", "rabenseifner", "slt", "prr", "linear_tree", "clairvoyant"] if a in algorithms]
    e = {a: [] for a in algs}
    for d in PA_DELAYS_MS:
        recs = runner.run("pa3_d%d" % d, "tryton48", 48,
                          ["--coll", "allreduce", "--alg", ",".join(algs), "--baseline", "ring",
                           "--count", "1M", "--pattern", "one-late:1", "--max-delay", "%dms" % d,
                           "--iters", "1", "--warmup", "0"])
        for a in algs:
            e[a].append(mean_of(recs, "avg_elapsed_s", algorithm=a) * 1e3)
    print("### [PA] Table 3: allreduce, P = 48, 1 Mi floats, rank 1 late (tryton48)\n")
    print("Average elapsed time ē [ms] (SMPI / paper / difference) and speed-up ē(ring)/ē(alg) "
          "(SMPI / paper). One iteration per delay: one-late is deterministic under SMPI.\n")
    rows = []
    for a in algs:
        paper = PA_TABLE3.get(a)
        cells = []
        for i, ours in enumerate(e[a]):
            cells.append("%.1f / %s / %s" % (ours, "%.1f" % paper[i] if paper else "–",
                                               pct(ours, paper[i]) if paper else "–"))
        rows.append(["%s ē" % a] + cells)
        sp = []
        for i, ours in enumerate(e[a]):
            s = e["ring"][i] / ours
            sp.append("%.2f / %s" % (s, "%.2f" % (PA_TABLE3["ring"][i] / paper[i]) if paper else "–"))
        rows.append(["%s speed-up" % a] + sp)
    print(table(["algorithm"] + ["%d ms" % d for d in PA_DELAYS_MS], rows))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for a in algs:
        axes[0].plot(PA_DELAYS_MS[1:], e[a][1:], marker="o", label="%s (SMPI)" % a)
        if a in PA_TABLE3:
            axes[0].plot(PA_DELAYS_MS[1:], PA_TABLE3[a][1:], ls="--", marker="x", color=axes[0].lines[-1].get_color(),
                         label="%s ([PA])" % a)
        axes[1].plot(PA_DELAYS_MS[1:], [e["ring"][i] / e[a][i] for i in range(1, len(PA_DELAYS_MS))],
                     marker="o", label="%s (SMPI)" % a)
        if a in PA_TABLE3:
            axes[1].plot(PA_DELAYS_MS[1:], [PA_TABLE3["ring"][i] / PA_TABLE3[a][i] for i in range(1, 8)], ls="--",
                         marker="x", color=axes[1].lines[-1].get_color())
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("delay of rank 1 [ms]")
    axes[0].set_yscale("log")
    axes[0].set_ylabel("ē [ms]")
    axes[1].set_ylabel("speed-up vs ring")
    axes[0].legend(fontsize=7)
    fig.suptitle("[PA] Table 3 under SMPI (tryton48, P = 48, 1 Mi floats); dashed: paper")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "smpi_pa_table3.png"), dpi=110)
    return e


# The sizes simulated for Table 4 (Ki floats); --full-pa4 adds 4 Mi and 8 Mi:
# one-late takes under 1.5 min per delay, rand-late (--pa4-iters 3) 4-24 min
# per delay on the loaded VM (86 min in all, SimGrid's hot loop at 8 Mi).
PA4_SIZES = [128, 512, 1024, 2048]


def pa4(runner, out, iters, sizes):
    counts = ",".join("%dK" % s for s in sizes)
    speedup = {}
    for mode in ("one-late:1", "rand-late"):
        n = 1 if mode.startswith("one-late") else iters
        for d in PA_DELAYS_MS:
            recs = runner.run("pa4_%s_d%d" % (mode.replace(":", ""), d), "tryton48", 48,
                              ["--coll", "allreduce", "--alg", "ring,prr", "--baseline", "ring", "--count", counts,
                               "--pattern", mode, "--max-delay", "%dms" % d, "--iters", str(n), "--warmup", "0",
                               "--no-check"],
                              ["--shared-malloc", str(8 << 20)])
            for s in sizes:
                ring = mean_of(recs, "avg_elapsed_s", algorithm="ring", count=s * 1024) * 1e3
                prr = mean_of(recs, "avg_elapsed_s", algorithm="prr", count=s * 1024) * 1e3
                speedup[(mode, s, d)] = (prr - ring, ring / prr)
    print("### [PA] Table 4: prr vs ring, P = 48, 128 Ki – 8 Mi floats (tryton48)\n")
    print("Each cell: ē(prr) − ē(ring) [ms] (SMPI) and speed-up ē(ring)/ē(prr) as SMPI / paper. "
          "Random: %d PAPs per delay, uniform in [0, D], the same for both algorithms. "
          "Buffers ≥ 8 MiB are SMPI shared-malloc (no result check in this table).\n" % iters)
    for mode, title in (("one-late:1", "Rank 1 late"), ("rand-late", "All ranks random")):
        print("%s:\n" % title)
        rows = []
        for s in sizes:
            rows.append(["%d Ki" % s] + ["%+.1f; %.2f / %.2f" % (speedup[(mode, s, d)][0], speedup[(mode, s, d)][1],
                                                                   PA_TABLE4[mode][s][i])
                                          for i, d in enumerate(PA_DELAYS_MS)])
        print(table(["floats"] + ["%d ms" % d for d in PA_DELAYS_MS], rows))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, mode in zip(axes, ("one-late:1", "rand-late")):
        for s in sizes:
            ax.plot(PA_DELAYS_MS[1:], [speedup[(mode, s, d)][1] for d in PA_DELAYS_MS[1:]], marker="o",
                    label="%d Ki (SMPI)" % s)
            ax.plot(PA_DELAYS_MS[1:], PA_TABLE4[mode][s][1:], ls="--", marker="x", color=ax.lines[-1].get_color())
        ax.axhline(1, color="grey", lw=0.5)
        ax.set_xscale("log")
        ax.set_xlabel("max delay [ms]")
        ax.set_title(mode)
    axes[0].set_ylabel("speed-up ē(ring)/ē(prr)")
    axes[0].legend(fontsize=7)
    fig.suptitle("[PA] Table 4 under SMPI (tryton48, P = 48); dashed: paper")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "smpi_pa_table4.png"), dpi=110)
    return speedup


# ---- [PS] ------------------------------------------------------------------

PS_ALGS = {"scatter": ["linear", "slin", "binomial", "sbn"], "gather": ["linear", "linear_sync", "sls", "binomial", "sbn"]}


def ps(runner, out, iters):
    counts = ",".join(str(round(s * 1024 / 48)) for s in PS_SIZES_KI)
    r = {}
    for coll in ("scatter", "gather"):
        for d in PS_DELAYS_MS:
            recs = runner.run("ps_%s_d%d" % (coll, d), "tryton48", 48,
                              ["--coll", coll, "--alg", ",".join(PS_ALGS[coll]), "--baseline", "linear",
                               "--count", counts, "--pattern", "rand-late", "--max-delay", "%dms" % d,
                               "--iters", str(iters if d else 1), "--warmup", "0"])
            for s in PS_SIZES_KI:
                for a in PS_ALGS[coll]:
                    values = [x["run_time_s"] * 1e3 for x in recs
                              if x["algorithm"] == a and x["count"] == round(s * 1024 / 48)]
                    r[(coll, a, s, d)] = (statistics.mean(values), statistics.pstdev(values))
    print("### [PS] Fig. 14/15 and Tables 3/4: scatter and gather, P = 48, root 0 (tryton48)\n")
    print("All ranks arrive uniformly at random in [0, D]; mean run time r over %d PAPs "
          "(the same PAPs for every algorithm). The paper's tables compare the *background* "
          "variants (BSLN vs LIN, BSLS vs LS), which run on the PAT runtime's thread: threads inside "
          "a rank are not simulated by SMPI, so the nearest foreground variants (SLIN, SLS) stand in.\n" % iters)
    for coll, base, pap, title, paper in (("scatter", "linear", "slin", "Table 3: r(LIN)/r(SLIN) SMPI vs r(LIN)/r(BSLN) paper", PS_TABLE3),
                                          ("gather", "linear_sync", "sls", "Table 4: r(LS)/r(SLS) SMPI vs r(LS)/r(BSLS) paper", PS_TABLE4)):
        print("%s; each cell r(%s) − r(%s) [ms] (SMPI); ratio SMPI / paper:\n" % (title, pap.upper(), base.upper()))
        rows = []
        for s in PS_SIZES_KI:
            rows.append(["%d Ki" % s] + ["%+.1f; %.2f / %.2f" % (r[(coll, pap, s, d)][0] - r[(coll, base, s, d)][0],
                                                                   r[(coll, base, s, d)][0] / r[(coll, pap, s, d)][0],
                                                                   paper[s][i])
                                          for i, d in enumerate(PS_DELAYS_MS)])
        print(table(["floats in all"] + ["%d ms" % d for d in PS_DELAYS_MS], rows))
    for coll in ("scatter", "gather"):
        print("%s, 2 Mi floats in all, mean r [ms] ± σ:\n" % coll)
        rows = [[d] + ["%.1f ± %.1f" % r[(coll, a, 2048, d)] for a in PS_ALGS[coll]] for d in PS_DELAYS_MS]
        print(table(["max delay [ms]"] + PS_ALGS[coll], rows))
    print("[PS] §5.2 text (scatter, 2 Mi floats): LIN %d → %d ms, SLIN %d → %d ms (BSLN %d → %d) for D = 0 → 50 ms; "
          "SMPI: LIN %.1f → %.1f, SLIN %.1f → %.1f.\n" % (*PS_TEXT["lin"], *PS_TEXT["slin"], *PS_TEXT["bsln"],
                                                           r[("scatter", "linear", 2048, 0)][0], r[("scatter", "linear", 2048, 50)][0],
                                                           r[("scatter", "slin", 2048, 0)][0], r[("scatter", "slin", 2048, 50)][0]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, coll in zip(axes, ("scatter", "gather")):
        for a in PS_ALGS[coll]:
            ax.errorbar(PS_DELAYS_MS, [r[(coll, a, 2048, d)][0] for d in PS_DELAYS_MS],
                        yerr=[r[(coll, a, 2048, d)][1] for d in PS_DELAYS_MS], marker="o", capsize=2, label=a)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel("max delay [ms]")
        ax.set_ylabel("mean run time r [ms]")
        ax.set_title("%s (Fig. %s)" % (coll, "14" if coll == "scatter" else "15"))
        ax.legend(fontsize=7)
    fig.suptitle("[PS] under SMPI (tryton48, P = 48, 2 Mi floats in all, rand-late)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "smpi_ps_fig14_15.png"), dpi=110)
    return r


# ---- [M] -------------------------------------------------------------------

def m4(runner):
    algs = ["native", "binomial", "rabenseifner", "ring", "chain", "radix_k", "clairvoyant"]
    recs = runner.run("m4", "curie128", 128, ["--coll", "reduce", "--alg", ",".join(algs[1:]), "--dtype", "int",
                                              "--count", "1M", "--iters", "1", "--warmup", "0"])
    print("### [M] Table 4: reduce, P = 128, 4 MiB, balanced (curie128)\n")
    rows = []
    for a in algs:
        ours = statistics.median(x["run_time_s"] for x in recs if x["algorithm"] == a)
        paper = M_TABLE4.get(a)
        rows.append([a, "%.4f" % ours, "%.4f" % paper if paper else "–", "%.2f" % (ours / paper) if paper else "–"])
    print(table(["algorithm", "SMPI r [s]", "[M] [s]", "SMPI / [M]"], rows))


def m12(runner, out, algorithms):
    algs = [a for a in M_ALGORITHMS if a in algorithms]
    ratio, absorption = {}, {}
    for size, count in M_SIZES.items():
        shared = ("--shared-malloc", "65536") if count >= M_SHARED_FROM else ()
        base = runner.run("m12_%s_i0" % size, "curie128", 128,
                          ["--coll", "reduce", "--alg", ",".join(algs), "--dtype", "int", "--count", str(count),
                           "--iters", "1", "--warmup", "0", "--baseline", "clairvoyant"], shared)
        t = {a: mean_of(base, "run_time_s", algorithm=a) for a in algs}
        tc = t["clairvoyant"]
        for k in M_IMBALANCE_TC:
            if k == 0:
                recs = base
            else:
                recs = runner.run("m12_%s_i%g" % (size, k), "curie128", 128,
                                  ["--coll", "reduce", "--alg", ",".join(algs), "--dtype", "int", "--count",
                                   str(count), "--pattern", "one-late", "--max-delay", "%.9f" % (k * tc),
                                   "--iters", "1", "--warmup", "0", "--baseline", "clairvoyant"], shared)
            for a in algs:
                ta = mean_of(recs, "run_time_s", algorithm=a)
                ratio[(size, k, a)] = ta / mean_of(recs, "run_time_s", algorithm="clairvoyant")
                absorption[(size, k, a)] = (t[a] - ta + k * tc) / t[a]
    print("### [M] Fig. 12 / 13: reduce, P = 128, rank 127 late by k·t_c (curie128)\n")
    print("t_c = Clairvoyant's balanced run time under SMPI for that size. Runtime relative to Clairvoyant "
          "(Fig. 12) / normalised absorption A/t(balanced) (Fig. 13):\n")
    rows = []
    for size in M_SIZES:
        for k in M_IMBALANCE_TC:
            rows.append([size, k] + ["%.2f / %.2f" % (ratio[(size, k, a)], absorption[(size, k, a)]) for a in algs])
    print(table(["size", "I / t_c"] + algs, rows))
    fig, axes = plt.subplots(2, len(M_SIZES), figsize=(14, 6), sharex=True)
    for j, size in enumerate(M_SIZES):
        for a in algs:
            axes[0][j].plot(M_IMBALANCE_TC, [ratio[(size, k, a)] for k in M_IMBALANCE_TC], marker="o", label=a)
            axes[1][j].plot(M_IMBALANCE_TC, [absorption[(size, k, a)] for k in M_IMBALANCE_TC], marker="o", label=a)
        axes[0][j].set_title(size)
        axes[1][j].set_xlabel("I / t_c")
    axes[0][0].set_ylabel("runtime / Clairvoyant")
    axes[1][0].set_ylabel("normalised absorption")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("[M] Fig. 12/13 under SMPI (curie128, P = 128, rank 127 late)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "smpi_m_fig12_13.png"), dpi=110)
    return ratio, absorption


# ---- [PO] ------------------------------------------------------------------

PO_ALGS = ["native", "binomial", "rabenseifner", "radix_k", "ring", "clairvoyant"]
PO_DELAYS_MS = [0, 1, 5, 10, 50, 100, 500]
PO_PROCS = [4, 8, 16, 32, 48]


def po(runner, out, iters):
    """[PO] Figs. 10/11 (the figures print no numbers: shape only). PATs: oracle ([PO] used the runtime's
    edge estimates, which SMPI cannot run: threads inside a rank are not simulated)."""
    fig10, fig11 = {}, {}
    for d in PO_DELAYS_MS:
        recs = runner.run("po10_d%d" % d, "tryton48", 48,
                          ["--coll", "reduce", "--alg", ",".join(PO_ALGS[1:]), "--count", "512K",
                           "--pattern", "rand-late", "--max-delay", "%dms" % d, "--iters", str(iters if d else 1),
                           "--warmup", "0"])
        for a in PO_ALGS:
            v = [x["run_time_s"] * 1e3 for x in recs if x["algorithm"] == a]
            fig10[(a, d)] = (statistics.mean(v), statistics.pstdev(v))
    for procs in PO_PROCS:
        recs = runner.run("po11_p%d" % procs, "tryton48", procs,
                          ["--coll", "reduce", "--alg", ",".join(PO_ALGS[1:]), "--count", "128K",
                           "--pattern", "rand-late", "--max-delay", "50ms", "--iters", str(iters), "--warmup", "0"])
        for a in PO_ALGS:
            v = [x["run_time_s"] * 1e3 for x in recs if x["algorithm"] == a]
            fig11[(a, procs)] = (statistics.mean(v), statistics.pstdev(v))
    print("### [PO] Fig. 10: reduce, P = 48, 512 Ki floats, all ranks random in [0, D] (tryton48)\n")
    print("Mean run time r [ms] ± σ over %d PAPs (the same PAPs for every algorithm); Clairvoyant gets the "
          "PAT vector (oracle):\n" % iters)
    print(table(["max delay [ms]"] + PO_ALGS,
                [[d] + ["%.1f ± %.1f" % fig10[(a, d)] for a in PO_ALGS] for d in PO_DELAYS_MS]))
    print("### [PO] Fig. 11: reduce, 128 Ki floats, all ranks random in [0, 50 ms] (tryton48)\n")
    print(table(["P"] + PO_ALGS, [[p] + ["%.1f ± %.1f" % fig11[(a, p)] for a in PO_ALGS] for p in PO_PROCS]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for a in PO_ALGS:
        axes[0].errorbar(PO_DELAYS_MS, [fig10[(a, d)][0] for d in PO_DELAYS_MS],
                         yerr=[fig10[(a, d)][1] for d in PO_DELAYS_MS], marker="o", capsize=2, label=a)
        axes[1].errorbar(PO_PROCS, [fig11[(a, p)][0] for p in PO_PROCS],
                         yerr=[fig11[(a, p)][1] for p in PO_PROCS], marker="o", capsize=2, label=a)
    axes[0].set_xscale("symlog", linthresh=1)
    axes[0].set_xlabel("max delay [ms]")
    axes[0].set_title("Fig. 10: P = 48, 512 Ki floats")
    axes[1].set_xlabel("P")
    axes[1].set_title("Fig. 11: 128 Ki floats, max delay 50 ms")
    for ax in axes:
        ax.set_ylabel("mean run time r [ms]")
        ax.legend(fontsize=7)
    fig.suptitle("[PO] Figs. 10/11 under SMPI (tryton48, rand-late, oracle PATs)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "smpi_po_fig10_11.png"), dpi=110)
    return fig10, fig11


# ---- scale -----------------------------------------------------------------

SCALE_BENCH = ["--coll", "reduce", "--alg", "binomial,clairvoyant", "--baseline", "binomial", "--count", "64K",
               "--iters", "1", "--warmup", "0"]
SCALE_RUNS = [  # (P, shared-malloc threshold or None, bench arguments)
    (128, None, SCALE_BENCH),
    (128, 65536, SCALE_BENCH),
    (1024, 65536, SCALE_BENCH),
]


def descendants(pid):
    """pid and every process below it (from /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def pss_kib(pids):
    total = 0
    for p in pids:
        try:
            with open("/proc/%d/smaps_rollup" % p) as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def measured(command, env, out_path):
    """Runs `command` under /usr/bin/time -v; returns (wall s, peak RSS MiB, peak PSS MiB, stdout)."""
    timing = out_path + ".time"
    started = time.time()
    with open(out_path, "w") as out:
        p = subprocess.Popen(["/usr/bin/time", "-v", "-o", timing] + command, stdout=out, stderr=subprocess.DEVNULL,
                             env=env)
        peak_pss = 0
        while p.poll() is None:
            peak_pss = max(peak_pss, pss_kib(descendants(p.pid)))
            time.sleep(0.5)
    wall = time.time() - started
    if p.returncode != 0:
        raise SystemExit("reproduce_smpi: %s failed (exit %d)" % (" ".join(command), p.returncode))
    rss = 0
    with open(timing) as f:
        for line in f:
            if "Maximum resident set size" in line:
                rss = int(line.split()[-1])
    with open(out_path) as f:
        return wall, rss / 1024, peak_pss / 1024, f.read()


def scale(runner):
    rows = []
    for procs, shared, bench in SCALE_RUNS:
        name = "scale_p%d%s" % (procs, "_shared" if shared else "")
        command = [runner.smpi, "--platform", "fattree1024", "-np", str(procs)]
        if shared:
            command += ["--shared-malloc", str(shared)]
        command += ["--", *bench, "--quiet"]
        print("+ " + " ".join(command), file=sys.stderr, flush=True)
        env = dict(os.environ, PATCOLL_MODEL=runner.model("fattree1024"))
        wall, rss, pss, text = measured(command, env, os.path.join(runner.work, name + ".txt"))
        times = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) > 4 and parts[2] in ("binomial", "clairvoyant") and parts[3].isdigit():
                times.setdefault(parts[2], []).append(float(parts[4]) / 1e3)
        rows.append([procs, "%s" % ("shared ≥ %d B, no check" % shared if shared else "private, checked"),
                     "%.0f s" % wall, "%.0f MiB" % rss, "%.0f MiB" % pss,
                     ", ".join("%s %s ms" % (k, " / ".join("%.3f" % t for t in v)) for k, v in times.items())])
    print("### Scale: wall time and peak memory (fattree1024; this machine)\n")
    print("reduce, 64 Ki floats (256 KiB), binomial and clairvoyant (each run once untimed, once timed; "
          "no native: it runs only as the result check's reference), 1 iteration; the simulated run "
          "times r from the same runs:\n")
    print(table(["P", "buffers", "wall", "peak RSS", "peak PSS", "simulated r"], rows))


def registered(smpi):
    """Algorithm names the SMPI build registers (patcoll-bench --list under smpirun)."""
    text = subprocess.run([smpi, "--platform", "tryton16", "-np", "1", "--", "--list"],
                          capture_output=True, text=True).stdout
    names = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("reduce", "allreduce", "scatter", "gather"):
            names.setdefault(parts[0], set()).add(parts[1])
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smpi", default=os.path.join(ROOT, "scripts", "smpi.sh"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    parser.add_argument("--work", default=os.path.join(ROOT, "results", "smpi"))
    parser.add_argument("--only", default="pa3,pa4,ps,m4,m12,po")
    parser.add_argument("--iters", type=int, default=2, help="random PAPs per delay (pa4, ps)")
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--full-pa4", action="store_true", help="[PA] Table 4 with 4 Mi and 8 Mi floats too")
    parser.add_argument("--pa4-iters", type=int, default=1, help="random PAPs per delay in [PA] Table 4")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    runner = Runner(args.smpi, args.work, args.reuse)
    # Build first (a no-op when up to date), so the algorithm list is current.
    runner.run("build_probe", "tryton16", 2, ["--coll", "reduce", "--alg", "binomial", "--count", "1",
                                                "--iters", "1", "--warmup", "0"])
    algorithms = registered(args.smpi)
    only = set(args.only.split(","))
    if "pa3" in only:
        pa3(runner, args.out, algorithms.get("allreduce", set()))
    if "pa4" in only:
        pa4(runner, args.out, args.pa4_iters, sorted(PA_TABLE4["one-late:1"]) if args.full_pa4 else PA4_SIZES)
    if "ps" in only:
        ps(runner, args.out, args.iters)
    if "m4" in only:
        m4(runner)
    if "m12" in only:
        m12(runner, args.out, algorithms.get("reduce", set()))
    if "po" in only:
        po(runner, args.out, args.iters)
    if "scale" in only:
        scale(runner)
    if runner.wall:
        print("Wall time of the SMPI runs (this machine, loaded): %s\n" % ", ".join(
            "%s %.0f s" % (k, v) for k, v in runner.wall.items() if k != "build_probe"))


if __name__ == "__main__":
    main()
