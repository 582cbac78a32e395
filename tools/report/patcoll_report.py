#!@PATCOLL_REPORT_PYTHON@
"""patcoll-report: what the arrival report of a program says, and what
patcoll would gain there.

    patcoll-report PATH [--model FILE] [--json] [--png FILE]

PATH is the file PATCOLL_REPORT=PATH made at MPI_Finalize; when it is
missing, the partial files PATH.rank<R> the ranks rewrote while the program
ran (said on stderr). Per call site, sorted by time in the collective:
collective, bytes, calls, time (mean per rank), arrival spread (max - min
entry: median, p95), per-rank lateness (entry - earliest entry: median; the
ranks persistently late), wait at NxN (sum over ranks of the time before
the last arrival) and the what-if: patcoll-sim's predicted time per call of
native (the best classic algorithm), of `auto`'s choice and of every
PAP-aware algorithm on a few representative recorded PAT vectors, with the
calibrated model (--model, written by patcoll-calibrate; else the
simulator's built-in one), and the predicted saving over the run. The first
line says whether patcoll is worth it and with which settings.

Standard library only, except --png (matplotlib). A malformed or truncated
report is one line on stderr and exit code 2.
"""
import argparse
import array
import base64
import binascii
import csv
import glob
import io
import json
import math
import operator
import os
import shutil
import struct
import subprocess
import sys
import tempfile

PROG = "patcoll-report"
VERSION = "@PROJECT_VERSION@"  # the project's, filled in by CMake (tools/report/CMakeLists.txt)
COLLECTIVES = ["reduce", "allreduce", "scatter", "gather"]  # core::Collective order
VECTORS = 4          # representative PAT vectors simulated per call site, at least (--vectors) ...
VECTOR_BUDGET = 400  # ... and more while all sites together stay within this many
LATE_FRACTION = 0.5  # a rank is late when its median lateness is at least this much of the median spread
MIN_LATE = 2e-4      # ... and at least this many seconds (--min-late): below, OS and network noise
PERSISTENT = 3      # sampled calls a site needs before a rank is called persistently late
MEDIAN_CALLS = 256   # sampled calls per site behind the per-rank lateness medians
WORTH_FRACTION = 0.02  # auto must be predicted to save this much of the time in collectives to be worth it


class ReportError(Exception):
    """A problem with the input: one line, exit code 2."""


# --- reading ------------------------------------------------------------------

def f64_array(text, count):
    values = array.array("d")
    try:
        values.frombytes(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError) as e:
        raise ReportError(f"bad sample data ({e})")
    if sys.byteorder != "little":
        values.byteswap()
    if len(values) != count:
        raise ReportError(f"sample data holds {len(values)} values, expected {count}")
    return values


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path} is not a complete JSON report (line {e.lineno}: {e.msg}); "
                          "truncated? the partial files PATH.rank<R> may hold the data")
    except UnicodeDecodeError:
        raise ReportError(f"{path} is not a JSON report (not text)")
    if not isinstance(data, dict) or data.get("format") != "patcoll-report":
        raise ReportError(f"{path} is not a patcoll report (no \"format\": \"patcoll-report\")")
    comms = {c["id"]: c for c in data["communicators"]}
    sites = []
    for s in data["sites"]:
        comm = comms[s["communicator"]]
        size = int(comm["size"])
        samples = s["samples"]
        n = int(samples["count"])
        sites.append({
            "id": s["id"], "collective": str(s["collective"]), "bytes": int(s["bytes"]),
            "call_site": str(s["call_site"]), "call_sites": list(s["call_sites"]),
            "communicator": f"{comm['name']} ({size} ranks)", "size": size,
            "calls": [c for c in s["calls"]], "served_by": dict(s["served_by"]),
            "time": [t for t in s["time_s"]],
            "trace": os.path.join(os.path.dirname(path), s["trace"]) if s.get("trace") else None,
            "entry": f64_array(samples["entry"], n * size), "exit": f64_array(samples["exit"], n * size),
            "samples": n,
        })
        if len(sites[-1]["time"]) != size or len(sites[-1]["calls"]) != size:
            raise ReportError(f"site {s['id']}: per-rank lists do not have {size} entries")
    return {"complete": True, "clock": data.get("clock", "?"), "world_size": int(data["world_size"]),
            "sites": sites, "directory": os.path.dirname(os.path.abspath(path))}


class Blob:
    """A rank file (report.cpp's serialize())."""

    def __init__(self, data, name):
        self.data, self.at, self.name = data, 0, name

    def get(self, fmt):
        try:
            values = struct.unpack_from("=" + fmt, self.data, self.at)
        except struct.error:
            raise ReportError(f"{self.name} is truncated")
        self.at += struct.calcsize("=" + fmt)
        return values[0] if len(values) == 1 else values

    def text(self):
        n = self.get("I")
        if self.at + n > len(self.data):
            raise ReportError(f"{self.name} is truncated")
        out = self.data[self.at:self.at + n].decode("utf-8", "replace")
        self.at += n
        return out

    def doubles(self, n, typecode="d"):
        size = array.array(typecode).itemsize * n
        if self.at + size > len(self.data):
            raise ReportError(f"{self.name} is truncated")
        values = array.array(typecode)
        values.frombytes(self.data[self.at:self.at + size])
        self.at += size
        return values


def load_partial(path):
    files = sorted(glob.glob(glob.escape(path) + ".rank*"))
    files = [f for f in files if f[len(path) + 5:].isdigit()]
    if not files:
        raise ReportError(f"no report {path} and no partial files {path}.rank<R> "
                          "(was PATCOLL_REPORT set to this path, and did the program make a collective call?)")
    ranks = []
    for name in files:
        with open(name, "rb") as f:
            b = Blob(f.read(), name)
        if b.text() != "PATCREP1":
            raise ReportError(f"{name} is not a patcoll report rank file")
        rank = {"rank": b.get("i"), "world_size": b.get("i"), "anchor": b.get("d"), "offset": b.get("d")}
        b.text()
        rank["host"] = b.text()
        b.get("I")
        rank["comms"] = []
        for _ in range(b.get("I")):
            comm = {"instance": b.get("I"), "inter": b.get("B"), "name": b.text()}
            size = b.get("I")
            comm["rank"] = b.get("i")
            comm["members"] = tuple(b.get("i") for _ in range(size))
            comm["sites"] = []
            for _ in range(b.get("I")):
                site = {"collective": b.get("B"), "bytes": b.get("q"), "first_call": b.get("Q"), "calls": b.get("Q"),
                        "time": b.get("d"), "min": b.get("d"), "max": b.get("d"), "call_site": b.text()}
                site["served"] = {}
                for _ in range(b.get("I")):
                    served = b.text()
                    site["served"][served] = b.get("Q")
                n = b.get("I")
                site["call"] = b.doubles(n, "Q")
                site["entry"], site["exit"] = b.doubles(n), b.doubles(n)
                comm["sites"].append(site)
            rank["comms"].append(comm)
        ranks.append(rank)
    # The clocks: the run did not reach MPI_Finalize's alignment. On one node
    # each rank's anchor (monotonic clock - MPI_Wtime) aligns it exactly.
    hosts = {r["host"] for r in ranks}
    root = next((r for r in ranks if r["rank"] == 0), ranks[0])
    for r in ranks:
        r["offset"] = r["anchor"] - root["anchor"] if len(hosts) == 1 else 0.0
    world = max(r["world_size"] for r in ranks)
    print(f"{PROG}: {path} is missing (the program did not reach MPI_Finalize?); reading {len(ranks)} partial "
          f"file(s) of {world} ranks, data up to each rank's last flush"
          + ("" if len(hosts) == 1 else "; ranks on several nodes: clocks not aligned"), file=sys.stderr)
    # Merge as report.cpp's write_report() does: a call site is
    # (communicator members, instance, collective, bytes, first call).
    merged = {}
    for r in ranks:
        for comm in r["comms"]:
            for s in comm["sites"]:
                key = (comm["members"], comm["instance"], s["collective"], s["bytes"], s["first_call"])
                m = merged.setdefault(key, {"comm": comm, "by_rank": [None] * len(comm["members"])})
                if 0 <= comm["rank"] < len(m["by_rank"]):
                    m["by_rank"][comm["rank"]] = (s, r["offset"])
    sites = []
    for key, m in merged.items():
        by_rank, size = m["by_rank"], len(m["by_rank"])
        present = [x for x in by_rank if x]
        lead = (by_rank[0] or present[0])[0]
        common = sorted(set.intersection(*(set(s["call"]) for s, _ in present))) if len(present) == size else []
        entry, exit_ = array.array("d", [0.0]) * (len(common) * size), array.array("d", [0.0]) * (len(common) * size)
        for i, (s, offset) in enumerate(by_rank if common else []):
            where = {c: j for j, c in enumerate(s["call"])}
            for k, c in enumerate(common):
                j = where[c]
                entry[k * size + i] = s["entry"][j] + offset
                exit_[k * size + i] = s["exit"][j] + offset
        t0 = min(entry) if common else 0.0
        sites.append({
            "collective": COLLECTIVES[lead["collective"]] if lead["collective"] < len(COLLECTIVES) else "?",
            "bytes": lead["bytes"], "call_site": lead["call_site"],
            "call_sites": [x[0]["call_site"] if x else None for x in by_rank],
            "communicator": f"{m['comm']['name']} ({size} ranks)", "size": size,
            "calls": [x[0]["calls"] if x else None for x in by_rank],
            "served_by": {k: v for x in present for k, v in x[0]["served"].items()},
            "time": [x[0]["time"] if x else None for x in by_rank], "trace": None,
            "entry": array.array("d", (v - t0 for v in entry)), "exit": array.array("d", (v - t0 for v in exit_)),
            "samples": len(common),
        })
    sites.sort(key=lambda s: -sum(t for t in s["time"] if t) / len(s["time"]))
    for k, s in enumerate(sites, 1):
        s["id"] = k
    return {"complete": False, "clock": "one node (anchors)" if len(hosts) == 1 else "not aligned",
            "world_size": world, "sites": sites, "directory": os.path.dirname(os.path.abspath(path))}


def load(path):
    if os.path.exists(path):
        try:
            return load_json(path)
        except KeyError as e:
            raise ReportError(f"{path} is a malformed patcoll report (no field {e})")
        except (TypeError, ValueError, AttributeError) as e:
            raise ReportError(f"{path} is a malformed patcoll report ({type(e).__name__}: {e})")
    try:
        return load_partial(path)
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as e:
        raise ReportError(f"the partial files of {path} are malformed ({type(e).__name__}: {e})")


# --- statistics ---------------------------------------------------------------

def quantile(values, q):
    if not values:
        return math.nan
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(math.floor(position))
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def analyse(site, vectors=VECTORS, min_late=MIN_LATE):
    """Spread, lateness, wait and representative vectors from the sample."""
    size, n = site["size"], site["samples"]
    entry, exit_ = site["entry"], site["exit"]
    rows = [entry[k * size:(k + 1) * size] for k in range(n)]
    lows = list(map(min, rows))
    highs = list(map(max, rows))
    last_exits = [max(exit_[k * size:(k + 1) * size]) for k in range(n)]
    spreads = list(map(operator.sub, highs, lows))
    waits = [hi * size - sum(row) for hi, row in zip(highs, rows)]
    tails = list(map(operator.sub, last_exits, highs))
    runs = list(map(operator.sub, last_exits, lows))
    calls = max((c for c in site["calls"] if c is not None), default=0)
    times = [t for t in site["time"] if t is not None]
    spread_median = quantile(spreads, 0.5)
    # Per-rank lateness medians: the columns of (at most MEDIAN_CALLS evenly
    # spaced calls of) the sample, in C-level loops.
    step = max(1, -(-n // MEDIAN_CALLS))
    some, some_lows = rows[::step], lows[::step]
    medians = [quantile(list(map(operator.sub, column, some_lows)), 0.5) for column in zip(*some)] if n else \
        [math.nan] * size
    # Imbalanced: the typical spread is above the noise floor and a tenth of
    # the collective's own time after the last arrival. Persistently late
    # (at a site of PERSISTENT calls or more): a median lateness of at least
    # half the typical spread and above the floor.
    tail_median = quantile(tails, 0.5)
    imbalanced = n > 0 and spread_median >= max(min_late, 0.1 * tail_median)
    late = [i for i, v in enumerate(medians)
            if imbalanced and n >= PERSISTENT and v >= max(LATE_FRACTION * spread_median, min_late)]
    # Representative PAT vectors: the sampled calls at evenly spaced
    # quantiles of the spread (every sampled call when there are no more).
    # A balanced site needs one: every algorithm is about native there.
    if not imbalanced:
        vectors = 1
    order = sorted(range(n), key=lambda k: spreads[k])
    picks = (range(n) if n <= vectors else
             sorted({order[min(n - 1, int((j + 0.5) * n / vectors))] for j in range(vectors)}))
    vectors = [[v - lows[k] for v in rows[k]] for k in picks]
    site.update({
        "calls_total": calls,
        "time_s": sum(times) / len(times) if times else 0.0,
        "spread_s": {"median": spread_median, "p95": quantile(spreads, 0.95)},
        "lateness_s": medians, "late_ranks": late, "imbalanced": imbalanced,
        "wait_s": (sum(waits) / n) * calls if n else math.nan,
        "run_s": {"median": quantile(runs, 0.5)},
        "tail_s": {"median": tail_median},
        "vectors": vectors,
    })
    return site


# --- the what-if ------------------------------------------------------------------

def read_model(path):
    """The cost-model file's values, read as patcoll-sim reads it
    (core::parse_cost_model: `alpha|beta|gamma VALUE`, `=` or `:` also
    between, `#` comments, every value positive and finite), so a bad file
    is one line and exit 2 here rather than a failed simulation per site.
    The what-if passes the file itself to patcoll-sim (--model)."""
    model = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.split("#", 1)[0]
                for c in "=:\t":
                    line = line.replace(c, " ")
                line = line.split()
                if not line:
                    continue
                try:
                    value = float(line[1]) if len(line) == 2 else math.nan
                except ValueError:
                    value = math.nan
                if not (math.isfinite(value) and value > 0):
                    raise ReportError(f"model {path} line {number}: expected "
                                      f"'<alpha|beta|gamma> <positive finite number>'")
                if line[0] not in ("alpha", "beta", "gamma"):
                    raise ReportError(f"model {path} line {number}: unknown key '{line[0]}' (alpha, beta, gamma)")
                model[line[0]] = value
    except OSError as e:
        raise ReportError(f"cannot read model {path} ({e.strerror})")
    except UnicodeDecodeError:
        raise ReportError(f"model {path}: not a text file")
    return model


def simulator():
    here = os.path.dirname(os.path.realpath(__file__))
    for candidate in (os.path.join(here, "patcoll-sim"), shutil.which("patcoll-sim")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class WhatIf:
    """patcoll-sim on each site's representative vectors: per site
    {algorithm: mean predicted seconds per call} and auto's choices. One
    simulator run per (collective, P, bytes), started as soon as the
    group's last site is analysed, two at a time, while the analysis of
    the other sites goes on."""

    def __init__(self, raw_sites, model_path, pap_names):
        self.sim = simulator()
        if not self.sim:
            print(f"{PROG}: patcoll-sim not found beside this script or on PATH: no what-if", file=sys.stderr)
        self.model_path, self.pap_names = model_path, pap_names
        self.left = {}  # group -> sites not analysed yet
        for s in raw_sites:
            self.left[self.group(s)] = self.left.get(self.group(s), 0) + 1
        self.members, self.queue, self.running = {}, [], []
        self.work = tempfile.TemporaryDirectory(prefix="patcoll-report.")

    @staticmethod
    def group(s):
        return (s["collective"], s["size"], s["bytes"])

    def add(self, s):
        """An analysed site; its group's simulation starts when complete."""
        key = self.group(s)
        self.left[key] -= 1
        if s["vectors"] and s["bytes"] >= 0 and s["collective"] in COLLECTIVES:
            self.members.setdefault(key, []).append(s)
        if self.left[key] == 0 and key in self.members and self.sim:
            self.queue.append(self.command(key, self.members.pop(key)))
        self.pump(block=False)

    def command(self, key, members):
        collective, size, nbytes = key
        paps = []
        for s in members:
            name = os.path.join(self.work.name, f"site{id(s)}.trace")
            with open(name, "w") as f:
                for v in s["vectors"]:
                    f.write(" ".join(f"{x:.9g}" for x in v) + "\n")
            paps.append("trace:" + name)
        element = 8 if nbytes % 8 == 0 else 4 if nbytes % 4 == 0 else 1
        names = ",".join(["native", "auto"] + sorted(self.pap_names.get(collective, ())))
        command = [self.sim, "--coll", collective, "--alg", names, "--procs", str(size),
                   "--size", str(nbytes), "--element-bytes", str(element), "--pattern", ",".join(paps),
                   "--no-absorption", "--quiet", "--csv"]
        if self.model_path:
            command += ["--model", self.model_path]
        return command, key, dict(zip(paps, members))

    def pump(self, block):
        """Starts queued runs (two at a time) and collects finished ones;
        block: until everything is done."""
        while True:
            while self.queue and len(self.running) < 2:
                command, key, by_pap = self.queue.pop(0)
                process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.running.append((process, key, by_pap))
            done = [r for r in self.running if block or r[0].poll() is not None]
            if not done:
                return
            process, key, by_pap = done[0]
            self.running.remove(done[0])
            self.collect(process, key, by_pap)
            if not block and not self.queue:
                continue
            if block and not self.running and not self.queue:
                return

    def collect(self, process, key, by_pap):
        collective, size, nbytes = key
        stdout, stderr = process.communicate()
        if process.returncode != 0:
            print(f"{PROG}: patcoll-sim failed for {collective} {nbytes} B at P = {size}: "
                  f"{stderr.strip().splitlines()[-1] if stderr.strip() else process.returncode}", file=sys.stderr)
            return
        for row in csv.DictReader(io.StringIO(stdout)):
            s = by_pap.get(row["pattern"])
            if s is None or row["error"]:
                continue
            s.setdefault("_runs", {}).setdefault(row["algorithm"], []).append(float(row["run_time_s"]))
            if row["algorithm"] == "auto":
                s.setdefault("_choices", []).append(row["choice"])

    def finish(self, sites):
        self.pump(block=True)
        self.work.cleanup()
        for s in sites:
            runs = s.pop("_runs", {})
            s["whatif"] = {name: sum(v) / len(v) for name, v in runs.items() if v and all(map(math.isfinite, v))}
            choices = s.pop("_choices", [])
            # auto's choices on the vectors, most frequent first: "clairvoyant" or "native 3/4, sls 1/4"
            counts = sorted(((choices.count(c), c) for c in set(choices)), reverse=True)
            s["auto_choice"] = (counts[0][1] if len(counts) == 1 else
                                ", ".join(f"{c} {k}/{len(choices)}" for k, c in counts)) if choices else None


def pap_aware_names(sim):
    """Catalogue names with the pap_aware restriction, per collective."""
    names = {c: set() for c in COLLECTIVES}
    if not sim:
        return names
    result = subprocess.run([sim, "--list"], capture_output=True, text=True)
    for line in result.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] in names and "pap_aware" in fields[2]:
            names[fields[0]].add(fields[1])
    return names


def savings(sites):
    """Predicted saving over the run (seconds) of auto and of each algorithm
    against native: calls x (native - algorithm) per call."""
    for s in sites:
        w = s.get("whatif", {})
        native = w.get("native")
        s["saving_s"] = ({name: s["calls_total"] * (native - t) for name, t in w.items() if name != "native"}
                         if native is not None else {})


def verdict(sites, model_path):
    total = sum(s["time_s"] for s in sites)
    auto_saving = sum(max(0.0, s["saving_s"].get("auto", 0.0)) for s in sites)
    gaining = [s for s in sites if s["saving_s"].get("auto", 0.0) > 0]
    imbalanced = [s for s in sites if s["imbalanced"]]
    colls = sorted({s["collective"] for s in gaining}, key=COLLECTIVES.index)
    settings = " ".join(f"PATCOLL_{c.upper()}=auto" for c in colls)
    if settings:
        settings += " PATCOLL_PATS=history" + (f" PATCOLL_MODEL={model_path}" if model_path else "")
    if not sites:
        return "no collective calls recorded: nothing for patcoll to do", ""
    if imbalanced and not any(s.get("whatif") for s in sites):
        return (f"ranks arrive late at {len(imbalanced)} call site(s); whether patcoll is worth it needs the what-if "
                f"(patcoll-sim beside patcoll-report, without --no-whatif)"), ""
    if gaining and total > 0 and auto_saving >= WORTH_FRACTION * total:
        top = max(gaining, key=lambda s: s["saving_s"].get("auto", 0))
        return ((f"patcoll is worth it for this program: {settings} is predicted to save {auto_saving:.3g} s of the "
                 f"{total:.3g} s each rank spends in these collectives ({100 * auto_saving / total:.0f} %), most at "
                 f"site {top['id']} ({top['collective']} at {top['call_site']}; auto chooses {top['auto_choice']})"),
                settings)
    if not imbalanced:
        return (f"patcoll is not worth it for this program: the ranks arrive together at every call site "
                f"({total:.3g} s per rank in these collectives); the MPI library's own algorithms are the right "
                f"ones"), ""
    best = max(((name, saving, s) for s in sites for name, saving in s["saving_s"].items() if name != "auto"),
               key=lambda x: x[1], default=None)
    if best and total > 0 and best[1] >= WORTH_FRACTION * total:
        name, saving, s = best
        return (f"patcoll may be worth it for this program: PATCOLL_{s['collective'].upper()}={name} is predicted to "
                f"save {saving:.3g} s of the {total:.3g} s each rank spends in these collectives at site {s['id']} "
                f"({s['collective']} at {s['call_site']}), but auto would not choose it on these patterns "
                f"(predicted saving {auto_saving:.3g} s): measure it"), f"PATCOLL_{s['collective'].upper()}={name}"
    why = (f"auto is predicted to save {auto_saving:.3g} s of {total:.3g} s" if auto_saving > 0
           else "no algorithm is predicted to beat native on the recorded patterns")
    return (f"patcoll is not worth it for this program: ranks arrive late at {len(imbalanced)} call site(s), but "
            f"{why} (under {100 * WORTH_FRACTION:.0f} %)"
            + ("" if model_path else "; with the model of this machine (patcoll-calibrate, --model) it may differ")), ""


# --- output ---------------------------------------------------------------------

def ms(x):
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x * 1e3:.3g} ms" if abs(x) < 1 else f"{x:.3g} s"


def late_text(s):
    if not s["late_ranks"]:
        return "none"
    shown = ", ".join(f"{i} ({ms(s['lateness_s'][i])})" for i in s["late_ranks"][:8])
    return shown + (f", +{len(s['late_ranks']) - 8} more" if len(s["late_ranks"]) > 8 else "")


def print_text(data, sites, line, model_path, pap_names):
    print(line)
    print(f"{len(sites)} call site(s), {data['world_size']} ranks, clocks aligned: {data['clock']}; model: "
          + (model_path if model_path else "patcoll-sim's built-in (calibrate with patcoll-calibrate, pass --model)")
          + ("" if data["complete"] else "; PARTIAL data (the run did not finish)"))
    for s in sites:
        print()
        plural = "" if s["calls_total"] == 1 else "s"
        print(f"site {s['id']}: {s['collective']}, {s['bytes']} B per rank, {s['calls_total']} call{plural}, at "
              f"{s['call_site']} on {s['communicator']}"
              + (f"; trace {s['trace']}" if s.get("trace") else ""))
        served = ", ".join(f"{k} {v}" for k, v in sorted(s["served_by"].items(), key=lambda kv: -kv[1]))
        print(f"  time {s['time_s']:.4g} s per rank; spread median {ms(s['spread_s']['median'])}, p95 "
              f"{ms(s['spread_s']['p95'])}; wait at NxN {s['wait_s']:.4g} s; served by {served}; "
              f"{s['samples']} sampled")
        print(f"  late ranks (median lateness): {late_text(s)}")
        w = s.get("whatif", {})
        if w:
            names = ["native", "auto"] + sorted(n for n in w if n in pap_names.get(s["collective"], ()))
            parts = []
            for n in names:
                if n in w:
                    label = f"auto ({s['auto_choice']})" if n == "auto" else n
                    saving = s["saving_s"].get(n)
                    parts.append(f"{label} {ms(w[n])}" + (f" [{saving:+.3g} s]" if saving is not None else ""))
            print("  what-if per call [saving over the run]: " + ", ".join(parts))


def json_record(s, pap_names):
    w = s.get("whatif", {})
    keep = {"native", "auto"} | pap_names.get(s["collective"], set())
    return {
        "id": s["id"], "collective": s["collective"], "call_site": s["call_site"], "communicator": s["communicator"],
        "bytes": s["bytes"], "calls": s["calls_total"], "time_s": s["time_s"], "spread_s": s["spread_s"],
        "lateness_s": s["lateness_s"], "late_ranks": s["late_ranks"], "wait_s": s["wait_s"],
        "served_by": s["served_by"], "samples": s["samples"], "trace": s.get("trace"),
        "whatif": {n: t for n, t in w.items() if n in keep}, "auto_choice": s.get("auto_choice"),
        "saving_s": {n: v for n, v in s.get("saving_s", {}).items() if n in keep},
    }


def clean(x):
    """NaN -> None for JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x


def plot(path, sites, pap_names):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ReportError("--png needs matplotlib (Debian: apt-get install python3-matplotlib; or /usr/bin/python3)")
    top = ([s for s in sites if s["samples"] >= PERSISTENT] or [s for s in sites if s["samples"]])[:3]
    if not top:
        raise ReportError("--png: no sampled calls to draw")
    fig, axes = plt.subplots(len(top), 2, figsize=(12, 3.2 * len(top)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    for row, s in zip(axes, top):
        size, n = s["size"], s["samples"]
        entry = s["entry"]
        lows = [min(entry[k * size:(k + 1) * size]) for k in range(n)]
        matrix = [[(entry[k * size + i] - lows[k]) * 1e3 for k in range(n)] for i in range(size)]
        image = row[0].imshow(matrix, aspect="auto", interpolation="nearest", cmap="viridis")
        row[0].set_title(f"site {s['id']}: {s['collective']} {s['bytes']} B at {s['call_site']}", fontsize=9)
        row[0].set_xlabel("sampled call")
        row[0].xaxis.get_major_locator().set_params(integer=True)
        row[0].set_ylabel("rank")
        fig.colorbar(image, ax=row[0], label="lateness (ms)")
        w = s.get("whatif", {})
        names = [n for n in ["native", "auto"] + sorted(pap_names.get(s["collective"], ())) if n in w]
        row[1].barh(names, [w[n] * 1e3 for n in names],
                    color=["grey" if n == "native" else "tab:blue" if n == "auto" else "tab:orange" for n in names])
        row[1].invert_yaxis()
        row[1].set_xlabel("predicted time per call (ms)")
        row[1].set_title("what-if (patcoll-sim, recorded PATs)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"{PROG}: wrote {path}", file=sys.stderr)


class Parser(argparse.ArgumentParser):
    """Bad command lines: one line on stderr, exit code 2 (the tools' contract)."""

    def error(self, message):
        print(f"{PROG}: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def main(argv=None):
    parser = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", help="the PATCOLL_REPORT file")
    parser.add_argument("--version", action="version", version=f"{PROG} (patcoll) {VERSION}")
    parser.add_argument("--model", help="cost-model file (patcoll-calibrate --out) for the what-if")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout instead of the text")
    parser.add_argument("--png", metavar="FILE", help="lateness heat maps and what-if bars of the top call sites")
    parser.add_argument("--no-whatif", action="store_true", help="skip the simulations")
    parser.add_argument("--vectors", type=int, metavar="K",
                        help=f"recorded PAT vectors simulated per call site: the calls at evenly spaced quantiles of "
                             f"the spread (default: {VECTOR_BUDGET} shared by the sites, at least {VECTORS} each)")
    parser.add_argument("--min-late", type=float, default=MIN_LATE, metavar="SECONDS",
                        help=f"lateness below this is noise (default {MIN_LATE})")
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parser.error("unknown option " + " ".join(unknown))
    if not args.path:
        parser.error("a report file is needed: patcoll-report PATH")
    try:
        if args.model:
            read_model(args.model)  # checked here: one line and exit 2 when bad
        model_path = os.path.abspath(args.model) if args.model else None
        data = load(args.path)
        if (args.vectors is not None and args.vectors < 1) or not args.min_late >= 0:
            raise ReportError("--vectors must be >= 1 and --min-late >= 0")
        vectors = args.vectors or max(VECTORS, VECTOR_BUDGET // max(1, len(data["sites"])))
        pap_names = pap_aware_names(simulator())
        whatif = None if args.no_whatif else WhatIf(data["sites"], model_path, pap_names)
        sites = []
        for s in data["sites"]:
            sites.append(analyse(s, vectors, args.min_late))
            if whatif:
                whatif.add(sites[-1])
        sites.sort(key=lambda s: -s["time_s"])
        if whatif:
            whatif.finish(sites)
        else:
            for s in sites:
                s["whatif"], s["auto_choice"] = {}, None
        savings(sites)
        line, settings = verdict(sites, args.model)
        if args.json:
            json.dump(clean({"verdict": line, "settings": settings, "complete": data["complete"],
                             "world_size": data["world_size"], "clock": data["clock"], "model": args.model,
                             "sites": [json_record(s, pap_names) for s in sites]}), sys.stdout, indent=1)
            print()
        else:
            print_text(data, sites, line, args.model, pap_names)
        if args.png:
            plot(args.png, sites, pap_names)
    except ReportError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # stdout closed early (| head): not an error of the report
        sys.stderr.close()
        return 0
    except OSError as e:
        print(f"{PROG}: {e.filename or args.path}: {e.strerror}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, IndexError, ZeroDivisionError) as e:  # never a traceback
        print(f"{PROG}: {args.path}: malformed report ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
