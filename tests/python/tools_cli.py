#!/usr/bin/env python3
"""The command-line contract every patcoll tool keeps (run by ctest as
tools-cli): --help and --version answer with exit 0; unknown flags,
malformed numbers, overflow and impossible process counts are ONE line on
stderr starting with the tool's name and exit code 2 — never a crash, a
wrap-around or a silently different value; long sweeps say how far they
are; patcoll-calibrate writes nothing at P = 1.

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
                        (["--pap", "one-late:-1ms"], "bad duration"), (["--procs", "1:200000:+1"], "more than"),
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

    if failures:
        print("tools_cli: FAIL\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    print("tools_cli: OK")


if __name__ == "__main__":
    main()
