#!/usr/bin/env python3
"""The command-line contract every patcoll tool keeps (run by ctest as
tools-cli): --help and --version answer with exit 0; unknown flags,
malformed numbers, overflow and impossible process counts are ONE line on
stderr starting with the tool's name and exit code 2 — never a crash, a
wrap-around or a silently different value; long sweeps say how far they
are; patcoll-calibrate writes nothing at P = 1.

The option matrix (docs/guide/tools.md): every tool accepts every shared
flag it documents under its name and under each older spelling (alias),
and the same bad value of a shared flag is the same message in every tool
(only the "patcoll-<tool>: " prefix differs). patcoll-bench runs as one
process (--allow-single-process), patcoll-calibrate's P = 1 refusal shows
its flags were read.

    tools_cli.py --bindir DIR --version X.Y.Z [--workdir DIR]
"""
import argparse
import os
import subprocess
import sys

failures = []


def run(cmd, timeout=120, cwd=None):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None


def expect(name, cmd, code, stderr_has=None, stdout_has=None, one_line=None, cwd=None):
    p = run(cmd, cwd=cwd)
    tool = os.path.basename(cmd[0])
    verdict = "ok"
    if p is None:
        verdict = "hung"
    elif p.returncode != code:
        verdict = "exit %d, expected %d; stderr %r" % (p.returncode, code, p.stderr[-300:])
    elif stdout_has and stdout_has not in p.stdout:
        verdict = "stdout lacks %r: %r" % (stdout_has, p.stdout[:200])
    elif code == 2 or one_line:
        lines = [line for line in p.stderr.splitlines() if line.strip()]
        if len(lines) != 1 or not lines[0].startswith(tool + ":"):
            verdict = "stderr is not one '%s: ...' line: %r" % (tool, lines[:4])
        elif stderr_has and stderr_has not in lines[0]:
            verdict = "stderr %r lacks %r" % (lines[0], stderr_has)
    elif stderr_has and stderr_has not in p.stderr:
        verdict = "stderr lacks %r: %r" % (stderr_has, p.stderr[-300:])
    print("%-70s %s" % (name[:70], verdict))
    if verdict != "ok":
        failures.append("%s: %s" % (name, verdict))
    return p


# ---- the option matrix -------------------------------------------------------

# Canonical flag -> its aliases (tools/common/cli.hpp, flags::).
ALIASES = {
    "--coll": ["--collective"], "--alg": ["--algorithms", "--algorithm"], "--procs": [],
    "--pattern": ["--pap"], "--max-delay": [], "--seed": [], "--model": [], "--size": ["--bytes"],
    "--count": [], "--root": [], "--json": [], "--csv": [], "--out": ["--output", "-o"], "--quiet": [],
    "--list": [],
}


def option_matrix(tool, workdir):
    model = os.path.join(workdir, "matrix.model")
    with open(model, "w") as f:
        f.write("# patcoll cost model\nalpha 3e-6\nbeta 5e-10\ngamma 2e-10\n")
    trace = os.path.join(workdir, "matrix.trace")
    with open(trace, "w") as f:
        f.write("0 0.001 0 0\n0 0 0.002 0\n")
    trace1 = os.path.join(workdir, "matrix1.trace")
    with open(trace1, "w") as f:
        f.write("0\n0\n")
    out = os.path.join(workdir, "matrix.out")
    # Per tool: a fast valid invocation and the value each shared flag takes.
    sim = [tool["sim"], "--quiet", "--procs", "4", "--size", "1K", "--alg", "binomial"]
    sched = [tool["sched"], "program", "--alg", "binomial", "--procs", "4"]
    bench = [tool["bench"], "--allow-single-process", "--coll", "reduce", "--alg", "binomial", "--count", "16",
             "--iters", "2", "--warmup", "0", "--quiet"]
    values = {"--coll": ["reduce"], "--alg": ["binomial"], "--procs": ["4"], "--pattern": ["one-late:20ms"],
              "--max-delay": ["1ms", "--pattern", "one-late"], "--seed": ["3", "--pattern", "rand-late:1ms"],
              "--model": [model], "--size": ["1K"], "--count": ["256"], "--root": ["1"], "--json": [],
              "--csv": [], "--out": [out], "--quiet": [], "--list": []}
    tools = {
        "sim": (sim, values, list(ALIASES)),
        "sched": (sched, values, ["--coll", "--alg", "--procs", "--pattern", "--max-delay", "--seed", "--model",
                                  "--size", "--count", "--root", "--json", "--csv"]),
        "bench": (bench, dict(values, **{"--procs": ["1"], "--root": ["0"], "--pattern": ["one-late:1ms"]}),
                  ["--coll", "--alg", "--procs", "--pattern", "--max-delay", "--seed", "--model", "--size",
                   "--count", "--root", "--json", "--csv", "--out", "--quiet", "--list"]),
    }
    for name, (base, vals, accepted) in tools.items():
        if not os.path.exists(base[0]):
            continue
        for flag in accepted:
            for spelling in [flag] + ALIASES[flag]:
                expect("%s accepts %s" % (name, spelling), base + [spelling] + vals[flag], 0)
        # --flag=value is the same as --flag value
        expect("%s accepts --procs=N" % name, base + ["--procs=" + vals["--procs"][0]], 0)
        # a trace file (one line per call, P values in seconds)
        if name == "sim":
            p = expect("sim --pattern trace:FILE", base + ["--pattern", "trace:" + trace], 0)
            if p and p.returncode == 0 and len([l for l in p.stdout.splitlines() if "trace:" in l]) != 2:
                failures.append("sim trace: not one row per trace line: %r" % p.stdout[-300:])
        if name == "bench":
            expect("bench --pattern trace:FILE", base + ["--pattern", "trace:" + trace1], 0)
        if name == "sched":
            expect("sched --pattern trace:FILE", base + ["--pattern", "trace:" + trace], 0)

    # patcoll-sched takes the pattern syntax with units in every subcommand.
    for sub in (["clairvoyant", "--segments", "4"], ["uni_greedy", "--segments", "4"],
                ["bi_greedy", "--segments", "4"], ["program", "--alg", "clairvoyant"]):
        p = expect("sched %s --pattern one-late:20ms" % sub[0],
                   [tool["sched"], sub[0], "--procs", "4"] + sub[1:] + ["--pattern", "one-late:20ms", "--json"], 0)
    p = run([tool["sched"], "program", "--alg", "linear", "--procs", "3", "--count", "2", "--pattern",
             "one-late:20ms", "--json"])
    if p is None or p.returncode != 0:
        failures.append("sched one-late:20ms: failed")

    # patcoll-calibrate: --out/--output/-o and --size/--bytes are read (the
    # P = 1 refusal comes after parsing); patcoll-info: --parsable.
    calibrate = tool["calibrate"]
    if os.path.exists(calibrate):
        for spelling in ("--out", "--output", "-o"):
            expect("calibrate accepts %s" % spelling, [calibrate, spelling, out, "--repetitions", "1"], 2,
                   stderr_has="nothing written")
        for spelling in ("--size", "--bytes"):
            expect("calibrate accepts %s" % spelling, [calibrate, spelling, "64K", "--out", out, "--repetitions", "1"],
                   2, stderr_has="nothing written")
    if os.path.exists(tool["info"]):
        expect("info accepts --parsable", [tool["info"], "--parsable"], 0)

    # The same mistake, the same words in every tool (after "<tool>: ").
    same = [
        (["--procs", "0"], "--procs: process count '0' is outside 1 .. 1048576"),
        (["--procs", "x"], "--procs: bad process count 'x'"),
        (["--procs"], "--procs needs a value"),
        (["--coll", "bogus"], "--coll: unknown collective 'bogus' (reduce, allreduce, scatter, gather, allgather, allgatherv, bcast, alltoall, alltoallv, reduce_scatter_block, reduce_scatter)"),
        (["--coll", "reduce", "--alg", "nosuch"], "--alg: unknown algorithm 'nosuch' for reduce (patcoll-info lists them)"),
        (["--pattern", "sideways:1ms"], "--pattern: unknown pattern 'sideways:1ms' (none, one-late, rand-late, "
                                        "alternating, linear, normal, gamma, bernoulli, trace:FILE)"),
        (["--pattern", "one-late"], "--pattern: pattern 'one-late' needs a delay: one-late:DELAY (e.g. one-late:20ms)"),
        (["--pattern", "one-late:soon"], "--pattern: bad delay 'soon' in 'one-late:soon'"),
        (["--pattern", "one-late:2ms", "--max-delay", "1ms"], "--pattern: delay given twice"),
        (["--pattern", "one-late", "--max-delay", "-1ms"], "--max-delay: bad duration '-1ms'"),
        (["--pattern", "rand-late:1ms", "--seed", "x"], "--seed: bad integer 'x'"),
        (["--pattern", "trace:/nonexistent/x.trace"], "--pattern: cannot open trace file '/nonexistent/x.trace'"),
        (["--model", "/nonexistent/m.model"], "--model: cannot read '/nonexistent/m.model'"),
        (["--model", os.path.join(workdir, "matrix.trace")], "--model: '%s': line 1: expected" %
         os.path.join(workdir, "matrix.trace")),
        (["--size", "5X"], "--size: bad size '5X'"),
        (["--bytes", "5X"], "--bytes: bad size '5X'"),
        (["--count", "x"], "--count: bad size 'x'"),
        (["--root", "x"], "--root: bad integer 'x'"),
        (["--root", "9"], "--root: root 9 is outside 0 .. 0 (1 processes)"),
        (["--json=1"], "--json takes no value"),
        (["--csv=yes"], "--csv takes no value"),
        (["--bogus"], "unknown option '--bogus' (see --help)"),
    ]
    bases = {"sim": [tool["sim"], "--quiet", "--procs", "1", "--alg", "binomial"],
             "sched": [tool["sched"], "program", "--alg", "binomial", "--procs", "1"],
             "bench": [tool["bench"], "--allow-single-process", "--coll", "reduce", "--alg", "binomial", "--count",
                       "16", "--iters", "1", "--warmup", "0", "--quiet"]}
    for flags, words in same:
        said = {}
        for name, base in bases.items():
            if not os.path.exists(base[0]):
                continue
            p = expect("%s %s" % (name, " ".join(flags)), base + flags, 2, stderr_has=words)
            if p is not None:
                lines = [line for line in p.stderr.splitlines() if line.strip()]
                if lines:
                    said[name] = lines[0].split(": ", 1)[-1]
        if len(set(said.values())) > 1:
            failures.append("%s: different words in different tools: %r" % (" ".join(flags), said))


def segments_column(sim):
    """The CSV's segments column is the N the algorithm used, not the input 0."""
    p = run([sim, "--quiet", "--alg", "clairvoyant,chain,binomial", "--procs", "8", "--size", "1M"])
    if p is None or p.returncode != 0:
        failures.append("sim segments: run failed")
        return
    lines = p.stdout.splitlines()
    columns = lines[0].split(",")
    for column in ("run_time_s", "avg_elapsed_s", "imbalance_s", "alpha_s", "bytes", "segments"):
        if column not in columns:
            failures.append("sim header lacks %r (units in the names): %r" % (column, lines[0]))
            return
    rows = {r.split(",")[1]: dict(zip(columns, r.split(","))) for r in lines[1:]}
    # N_opt = sqrt((ceil(log2 8) - 1) m (beta + gamma) / alpha) = 22.6 -> 23 at the defaults; chain 1 MiB / 32 KiB.
    want = {"clairvoyant": "23", "chain": "32", "binomial": "1"}
    for algorithm, n in want.items():
        got = rows.get(algorithm, {}).get("segments")
        print("%-70s %s" % ("sim segments column: %s N = %s" % (algorithm, n), "ok" if got == n else got))
        if got != n:
            failures.append("sim segments for %s: %r, expected %s" % (algorithm, got, n))
    p = run([sim, "--quiet", "--alg", "clairvoyant", "--procs", "8", "--size", "1M", "--segments", "5"])
    if p is None or ",clairvoyant,8,0,262144,1048576,4,5,0," not in p.stdout:
        failures.append("sim --segments 5: not 5 in the segments column")
    p = run([sim, "--quiet", "--alg", "binomial", "--procs", "4", "--size", "1K", "--json"])
    if p is None or not p.stdout.startswith('{"collective":"reduce"') or '"run_time_s":' not in p.stdout:
        failures.append("sim --json: not JSON lines with unit-named keys: %r" % (p.stdout[:200] if p else None))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bindir", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--workdir", default=".")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    tool = {name: os.path.join(args.bindir, "patcoll-" + name) for name in ("sim", "sched", "bench", "calibrate", "info", "report")}

    for name, path in tool.items():
        if not os.path.exists(path):
            continue  # a core-only build has no bench/calibrate
        expect(name + " --help", [path, "--help"], 0, stdout_has="usage")
        expect(name + " --version", [path, "--version"], 0, stdout_has="patcoll-%s (patcoll) %s" % (name, args.version))
        bogus = [path, "program", "--bogus", "1"] if name == "sched" else [path, "--bogus"]
        expect(name + " --bogus", bogus, 2, stderr_has="unknown")

    sim = tool["sim"]
    base = [sim, "--algorithms", "binomial", "--quiet"]
    for flags, says in ((["--alpha", "nan"], "--alpha"), (["--alpha", "-1"], "--alpha"), (["--alpha", "0"], "--alpha"),
                        (["--beta", "inf"], "--beta"), (["--gamma", "-1e-9"], "--gamma"),
                        (["--procs", "99999999999"], "--procs"), (["--procs", "0"], "--procs"),
                        (["--procs", "4:1:x2"], "--procs"), (["--bytes", "5X"], "--bytes"),
                        (["--bytes", "1.3K"], "--bytes"), (["--count", "99999999999999999999"], "--count"),
                        (["--segments", "-1"], "--segments"), (["--root", "99999999999"], "--root"),
                        (["--pap", "one-late"], "needs a delay"), (["--pap", "sideways:1ms"], "unknown pattern"),
                        (["--pap", "one-late:-1ms"], "--pap: bad delay"), (["--procs", "1:200000:+1"], "more than"),
                        (["--element-bytes", "0"], "--element-bytes")):
        expect("sim " + " ".join(flags), base + flags, 2, stderr_has=says)
    p = expect("sim --bytes 1M is 2^20", base + ["--procs", "4", "--bytes", "1M"], 0)
    if p and p.returncode == 0 and ",1048576," not in p.stdout:
        failures.append("sim --bytes 1M: no 1048576-byte row")
    p = expect("sim P = 1", [sim, "--algorithms", "binomial,linear", "--procs", "1", "--pap", "none,one-late:1ms"], 0)
    if p and ("-nan" in p.stdout or "inf" in p.stdout):
        failures.append("sim P = 1 prints -nan/inf: %r" % p.stdout[-300:])
    expect("sim long sweep reports progress", [sim, "--algorithms", "binomial,linear", "--procs", "2:64:x2",
                                               "--progress", "0"], 0, stderr_has="cases (")

    sched = tool["sched"]
    for flags, says in ((["clairvoyant", "--procs", "99999999999", "--segments", "4"], "--procs"),
                        (["clairvoyant", "--procs", "4", "--segments", "5X"], "--segments"),
                        (["uni_greedy", "--procs", "4", "--segments", "2", "--alpha", "nan"], "--alpha"),
                        (["program", "--alg", "binomial", "--procs", "4", "--count", "1e3"], "--count")):
        expect("sched " + " ".join(flags), [sched] + flags, 2, stderr_has=says)

    calibrate = tool["calibrate"]
    if os.path.exists(calibrate):
        for flags, says in ((["--repetitions", "5X"], "--repetitions"), (["--bytes", "99999999999"], "--bytes"),
                            (["--bytes", "100"], "--bytes"), (["--out"], "needs a value")):
            expect("calibrate " + " ".join(flags), [calibrate] + flags, 2, stderr_has=says)
        model = os.path.join(args.workdir, "p1-model.txt")
        if os.path.exists(model):
            os.remove(model)
        expect("calibrate at P = 1 refuses", [calibrate, "--out", model, "--repetitions", "2"], 2,
               stderr_has="nothing written")
        if os.path.exists(model):
            failures.append("calibrate at P = 1 wrote %s" % model)

    option_matrix(tool, args.workdir)
    segments_column(tool["sim"])

    if failures:
        print("tools_cli: FAIL\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    print("tools_cli: OK")


if __name__ == "__main__":
    main()
