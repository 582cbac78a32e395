#!/usr/bin/env python3
"""MPI smoke test of patcoll-bench (run by ctest as bench-smoke).

Runs the bench briefly on 4 ranks (tiny sizes, 2 iterations) for every
collective of `--list` and every registered algorithm, then checks: exit code 0,
every JSON line against the schema, every listed algorithm present (or
reported as skipped), every result correct, the summary table printed, and
that tools/plot.py turns the output into a PNG. A second short run uses
window synchronisation and a trace file.

    bench_smoke.py --bench BIN --workdir DIR --mpiexec MPIRUN [MPIRUN FLAGS...]
"""
import argparse
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_schema  # noqa: E402

PROCS = 4
ITERS = 2


def fail(message):
    print("bench_smoke: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def run(cmd, timeout=400):
    print("+ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--mpiexec", nargs=argparse.REMAINDER, required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    mpi = args.mpiexec + ["-np", str(PROCS), args.bench]

    listed = collections.defaultdict(set)
    collectives = []  # in --list order
    p = run([args.bench, "--list"])
    for line in p.stdout.splitlines():
        coll, name = line.split()[:2]
        listed[coll].add(name)
        if coll not in collectives:
            collectives.append(coll)

    out = os.path.join(args.workdir, "smoke.jsonl")
    p = run(mpi + ["--coll", ",".join(collectives), "--count", "7,1000", "--iters", str(ITERS),
                   "--warmup", "1", "--pattern", "rand-late", "--max-delay", "1ms", "--seed", "3", "--out", out])
    if p.returncode != 0:
        fail("bench exited with %d" % p.returncode)
    if "median r [us]" not in p.stdout or "e min / avg / max [us]" not in p.stdout:
        fail("no summary table (microseconds, min/avg/max over ranks) on stdout")
    records, problems = bench_schema.check_file(out)
    if problems:
        fail("schema: " + "; ".join(problems[:5]))
    skipped = collections.defaultdict(set)
    coll = None
    for line in p.stdout.splitlines():
        if line and line.split(",")[0] in listed:
            coll = line.split(",")[0]
        elif " skipped: " in line and coll:
            skipped[coll].add(line.split()[2])  # size [B], count, algorithm
    seen = collections.defaultdict(collections.Counter)
    for r in records:
        if r["procs"] != PROCS:
            fail("procs %d, expected %d" % (r["procs"], PROCS))
        if not r["correct"]:
            fail("wrong result: %s %s count %d" % (r["collective"], r["algorithm"], r["count"]))
        seen[r["collective"]][r["algorithm"]] += 1
    for coll, names in listed.items():
        for name in names:
            if name in skipped[coll]:
                continue
            if seen[coll][name] != 2 * ITERS:
                fail("%s %s: %d records, expected %d" % (coll, name, seen[coll][name], 2 * ITERS))

    png = os.path.join(args.workdir, "smoke.png")
    plot = os.path.join(HERE, "..", "..", "tools", "plot.py")
    p = run([sys.executable, plot, out, "-o", png])
    if p.returncode != 0:
        fail("plot.py exited with %d" % p.returncode)
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail("plot.py did not write a PNG")

    # Every generated pattern once, every collective, one iteration.
    for pattern in ("none", "one-late:1", "alternating", "normal", "gamma:3", "bernoulli:0.3"):
        out_p = os.path.join(args.workdir, "pattern.jsonl")
        p = run(mpi + ["--coll", "reduce,allreduce,scatter,gather", "--count", "10", "--iters", "1", "--warmup",
                       "0", "--pattern", pattern, "--max-delay", "500us", "--quiet", "--out", out_p])
        if p.returncode != 0:
            fail("pattern %s: exit code %d" % (pattern, p.returncode))
        records, problems = bench_schema.check_file(out_p)
        if problems or not records or not all(r["correct"] for r in records):
            fail("pattern %s: schema or result problems %s" % (pattern, problems[:3]))
        if any(r["pattern"] != pattern or max(r["arrivals_s"]) > 500e-6 + 1e-12 for r in records):
            fail("pattern %s: wrong pattern field or arrival beyond D" % pattern)

    # Window synchronisation, busy delay and a trace (with wrap for warm-up).
    trace = os.path.join(args.workdir, "trace.txt")
    with open(trace, "w") as f:
        f.write("# two PAPs of 4 ranks\n0 0.001 0 0\n0.002,0,0,0.001\n")
    out2 = os.path.join(args.workdir, "window.jsonl")
    p = run(mpi + ["--coll", "reduce", "--alg", "native,binomial", "--count", "100", "--iters", "2", "--warmup",
                   "3", "--pattern", "trace:" + trace, "--sync", "window", "--window", "60ms", "--delay", "busy", "--out", out2])
    if p.returncode != 0:
        fail("window run exited with %d" % p.returncode)
    records, problems = bench_schema.check_file(out2)
    if problems:
        fail("schema (window): " + "; ".join(problems[:5]))
    if len(records) != 4:
        fail("window run: %d records, expected 4" % len(records))
    for r in records:
        if r["sync"] != "window" or "measured_arrivals_s" not in r:
            fail("window run: record without window fields")
        expected = [[0, 0.001, 0, 0], [0.002, 0, 0, 0.001]][r["iteration"]]  # measured iteration j: line j
        if max(abs(a - b) for a, b in zip(r["arrivals_s"], expected)) > 1e-12:
            fail("window run: arrivals %s, expected trace line %s" % (r["arrivals_s"], expected))
    # OSU/IMB-style sizes: --bytes with a range; counts derived from the
    # datatype; min/avg/max over ranks in every record and in the table.
    out_b = os.path.join(args.workdir, "bytes.jsonl")
    p = run(mpi + ["--coll", "allreduce", "--alg", "native,ring", "--bytes", "4K:16K:x2", "--dtype", "double",
                   "--iters", "2", "--warmup", "0", "--quiet", "--out", out_b])
    if p.returncode != 0:
        fail("--bytes run exited with %d" % p.returncode)
    records, problems = bench_schema.check_file(out_b)
    if problems:
        fail("schema (--bytes): " + "; ".join(problems[:5]))
    if sorted({(r["bytes"], r["count"]) for r in records}) != [(4096, 512), (8192, 1024), (16384, 2048)]:
        fail("--bytes 4K:16K:x2 gave sizes %s" % sorted({(r["bytes"], r["count"]) for r in records}))
    if not all("min_elapsed_s" in r and r["min_elapsed_s"] <= r["avg_elapsed_s"] <= r["max_elapsed_s"] for r in records):
        fail("--bytes run: min/avg/max elapsed missing or out of order")
    for size, count in ((4096, 512), (16384, 2048)):
        if not any(line.split()[:3] == [str(size), str(count), "ring"] for line in p.stdout.splitlines()):
            fail("--bytes run: no table row '%d %d ring'" % (size, count))

    # Aliases in --alg and --baseline run (and are recorded as) their canonical rows.
    out_a = os.path.join(args.workdir, "aliases.jsonl")
    p = run(mpi + ["--coll", "scatter,gather", "--alg", "bnom,ls,bsln", "--baseline", "lin", "--count", "10",
                   "--iters", "1", "--warmup", "0", "--quiet", "--out", out_a])
    if p.returncode != 0:
        fail("aliases run exited with %d" % p.returncode)
    records, problems = bench_schema.check_file(out_a)
    if problems or not all(r["correct"] for r in records):
        fail("aliases run: schema or result problems %s" % problems[:3])
    ran = {(r["collective"], r["algorithm"]) for r in records}
    wanted = {("scatter", "binomial"), ("scatter", "linear"), ("scatter", "bsln"),
              ("gather", "binomial"), ("gather", "linear"), ("gather", "linear_sync")}
    if ran != wanted:
        fail("aliases run: ran %s, expected %s" % (sorted(ran), sorted(wanted)))

    # PAT sources: the vector the library held (pats_s) shows the late rank
    # as the latest, from the runtime's edge estimate and from history.
    for source in ("runtime", "history", "oracle", "none"):
        out_s = os.path.join(args.workdir, "source-%s.jsonl" % source)
        p = run(mpi + ["--coll", "reduce,allreduce", "--alg", "native,clairvoyant,prr", "--count", "1000", "--iters",
                       "3", "--warmup", "2", "--pattern", "one-late:2", "--max-delay", "20ms", "--pat-source", source,
                       "--quiet", "--out", out_s])
        if p.returncode != 0:
            fail("--pat-source %s: exit code %d" % (source, p.returncode))
        records, problems = bench_schema.check_file(out_s)
        if problems or not records or not all(r["correct"] and r["pat_source"] == source for r in records):
            fail("--pat-source %s: schema, field or result problems %s" % (source, problems[:3]))
        for r in records:
            if r["algorithm"] in ("bound", "tight_bound"):  # the measured limits, no PAT vector involved
                continue
            pats = r.get("pats_s")
            if source == "none":
                if pats is not None:
                    fail("--pat-source none: a PAT vector was held: %s" % pats)
                continue
            if pats is None:
                fail("--pat-source %s: no PAT vector held at iteration %d" % (source, r["iteration"]))
            late = max(range(PROCS), key=lambda i: pats[i])
            # Sleeps overshoot on a loaded machine; the late rank must still stand out.
            if late != 2 or pats[2] < 0.010 or pats[2] > 0.200:
                fail("--pat-source %s: PATs %s do not show rank 2 late by ~20 ms" % (source, pats))
    print("bench_smoke: OK (%d + %d records)" % (sum(sum(c.values()) for c in seen.values()), len(records)))


if __name__ == "__main__":
    main()
