#!/usr/bin/env python3
"""Bad input to patcoll-bench (run by ctest as bench-bad-input): every case
must end with a non-zero exit, exactly one 'patcoll-bench:' line on stderr
naming the problem, and no hang (timeout).

    bench_bad_input.py --bench BIN --workdir DIR --mpiexec MPIRUN [MPIRUN FLAGS...]
"""
import argparse
import os
import subprocess
import sys

PROCS = 2


def cases(workdir):
    def trace(name, text):
        path = os.path.join(workdir, name)
        with open(path, "w") as f:
            f.write(text)
        return "trace:" + path

    return [
        (["--coll", "bogus"], "unknown collective"),
        (["--alg", "nosuch"], "unknown algorithm"),
        (["--baseline", "nosuch"], "--baseline: unknown algorithm"),
        (["--pattern", "late"], "unknown pattern"),
        (["--pattern", "one-late:1ms:9"], "out of range"),
        (["--pattern", "one-late:9", "--max-delay", "1ms"], "out of range"),
        (["--pattern", "one-late:2ms", "--max-delay", "1ms"], "delay given twice"),
        (["--pattern", "one-late"], "needs a delay"),
        (["--max-delay", "-5ms"], "--max-delay: bad duration"),
        (["--max-delay", "5 parsecs"], "--max-delay: bad duration"),
        (["--count", "-10"], "--count: bad size"),
        (["--count", "12x"], "--count: bad size"),
        (["--iters", "0"], "--iters"),
        (["--warmup", "-1"], "--warmup"),
        (["--root", "5"], "--root: root 5 is outside"),
        (["--dtype", "quad"], "unknown datatype"),
        (["--op", "band", "--dtype", "float"], "integer"),
        (["--delay", "nap"], "unknown delay"),
        (["--sync", "clock"], "unknown sync"),
        (["--pat-source", "psychic"], "unknown PAT source"),
        (["--pat-source", "runtime", "--sync", "window"], "needs --sync barrier"),
        (["--edge", "0"], "bad edge"),
        (["--edge", "1.5"], "bad edge"),
        (["--history-window", "0"], "--history-window"),
        (["--frobnicate", "1"], "unknown option"),
        (["--bogus"], "unknown option"),
        (["--count", "99999999999"], "--count: size"),
        (["--bytes", "1001", "--dtype", "double"], "not a whole number"),
        (["--bytes", "4K:1K:x2"], "--bytes: range"),
        (["--iters", "5X"], "--iters"),
        (["--pattern", "trace:/nonexistent/patcoll.trace"], "--pattern: cannot open"),
        (["--pattern", trace("wrong_count.txt", "0 0\n0 0 0\n")], "expected 2"),
        (["--pattern", trace("not_numeric.txt", "0 abc\n")], "not a number"),
        (["--pattern", trace("negative.txt", "0 -1\n")], "negative"),
        (["--pattern", trace("short.txt", "0 0.001\n"), "--iters", "3"], "fewer than --iters"),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--mpiexec", nargs=argparse.REMAINDER, required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    failures = []
    for extra, expected in cases(args.workdir):
        cmd = args.mpiexec + ["-np", str(PROCS), args.bench, "--count", "10", "--iters", "1"] + extra
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append("%s: hung (timeout)" % " ".join(extra))
            continue
        ours = [line for line in p.stderr.splitlines() if line.startswith("patcoll-bench:")]
        verdict = "ok"
        if p.returncode == 0:
            verdict = "exit code 0"
        elif len(ours) != 1:
            verdict = "%d 'patcoll-bench:' lines on stderr: %r" % (len(ours), ours)
        elif expected not in ours[0]:
            verdict = "stderr %r does not mention %r" % (ours[0], expected)
        print("%-60s %s%s" % (" ".join(extra)[:60], verdict, "" if verdict != "ok" else "  | " + ours[0]))
        if verdict != "ok":
            failures.append("%s: %s" % (" ".join(extra), verdict))
    # Without mpirun (one process): refused with one line and exit 2, unless
    # asked; --help and --version answer without MPI.
    for extra, code, expected in ((["--count", "10", "--iters", "1"], 2, "nothing to compare"),
                                  (["--count", "10", "--iters", "1", "--warmup", "0", "--allow-single-process",
                                    "--alg", "native,binomial", "--coll", "reduce", "--quiet"], 0, None),
                                  (["--version"], 0, None), (["--help"], 0, None)):
        try:
            p = subprocess.run([args.bench] + extra, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append("single process %s: hung" % " ".join(extra))
            continue
        ours = [line for line in p.stderr.splitlines() if line.startswith("patcoll-bench:")]
        verdict = "ok"
        if p.returncode != code:
            verdict = "exit code %d, expected %d (%s)" % (p.returncode, code, p.stderr.strip()[:200])
        elif expected and (len(ours) != 1 or expected not in ours[0]):
            verdict = "stderr %r does not say %r in one line" % (ours, expected)
        elif extra == ["--version"] and "patcoll-bench (patcoll) " not in p.stdout:
            verdict = "--version printed %r" % p.stdout
        elif extra == ["--help"] and "usage:" not in p.stdout:
            verdict = "--help printed %r" % p.stdout[:80]
        print("%-60s %s" % (("P=1 " + " ".join(extra))[:60], verdict))
        if verdict != "ok":
            failures.append("single process %s: %s" % (" ".join(extra), verdict))
    if failures:
        print("bench_bad_input: FAIL\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    print("bench_bad_input: OK")


if __name__ == "__main__":
    main()
