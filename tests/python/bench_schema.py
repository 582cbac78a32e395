"""The JSON-lines schema of patcoll-bench --out (docs/results/bench.md).

check_record(obj) returns a list of problems ("" free); check_file(path)
returns (records, problems)."""
import json
import math

REQUIRED = {
    "collective": str,
    "algorithm": str,
    "count": int,
    "bytes": int,
    "procs": int,
    "pattern": str,
    "max_delay_s": (int, float),
    "iteration": int,
    "run_time_s": (int, float),
    "avg_elapsed_s": (int, float),
    "arrivals_s": list,
    "elapsed_s": list,
    "correct": bool,
}
OPTIONAL = {
    "dtype": str,
    "op": str,
    "root": int,
    "seed": int,
    "sync": str,
    "delay": str,
    "pat_source": str,
    "window_missed": bool,
    "measured_arrivals_s": list,
    "arrival_error_s": (int, float),
    "pats_s": list,
    "chosen": str,
    "transfer_s": (int, float),      # algorithms "bound" and "tight_bound" only
    "reduce_local_s": (int, float),  # algorithms "bound" and "tight_bound" only
    "min_elapsed_s": (int, float),
    "max_elapsed_s": (int, float),
}
COLLECTIVES = {"reduce", "allreduce", "scatter", "gather", "bcast", "allgather", "allgatherv", "alltoall", "alltoallv",
               "reduce_scatter_block", "reduce_scatter"}


def _is(value, kind):
    # bool is an int in Python; keep them apart.
    if isinstance(value, bool) or kind is bool:
        return isinstance(value, bool) and kind is bool
    return isinstance(value, kind)


def check_record(obj):
    problems = []
    if not isinstance(obj, dict):
        return ["not a JSON object"]
    for key, kind in REQUIRED.items():
        if key not in obj:
            problems.append("missing field '%s'" % key)
        elif not _is(obj[key], kind):
            problems.append("field '%s' has type %s" % (key, type(obj[key]).__name__))
    for key, kind in OPTIONAL.items():
        if key in obj and not _is(obj[key], kind):
            problems.append("field '%s' has type %s" % (key, type(obj[key]).__name__))
    if problems:
        return problems
    if obj["collective"] not in COLLECTIVES:
        problems.append("unknown collective '%s'" % obj["collective"])
    procs = obj["procs"]
    if procs < 1:
        problems.append("procs < 1")
    for key in ("arrivals_s", "elapsed_s") + tuple(k for k in ("measured_arrivals_s", "pats_s") if k in obj):
        values = obj[key]
        if len(values) != procs:
            problems.append("'%s' has %d values for %d procs" % (key, len(values), procs))
        if not all(_is(v, (int, float)) and math.isfinite(v) for v in values):
            problems.append("'%s' holds a non-number" % key)
    for key in ("count", "bytes", "iteration"):
        if obj[key] < 0:
            problems.append("'%s' is negative" % key)
    for key in ("max_delay_s", "run_time_s", "avg_elapsed_s"):
        if not math.isfinite(obj[key]) or obj[key] < 0:
            problems.append("'%s' is not a non-negative number" % key)
    if not problems and obj["elapsed_s"]:
        mean = sum(obj["elapsed_s"]) / procs
        if abs(mean - obj["avg_elapsed_s"]) > 1e-6 * max(1.0, mean):
            problems.append("avg_elapsed_s is not the mean of elapsed_s")
        # OSU-style min/max over ranks: the extremes of elapsed_s.
        for key, extreme in (("min_elapsed_s", min), ("max_elapsed_s", max)):
            if key in obj and abs(obj[key] - extreme(obj["elapsed_s"])) > 1e-6 * max(1.0, abs(obj[key])):
                problems.append("%s is not the %s of elapsed_s" % (key, extreme.__name__))
    return problems


def check_file(path):
    records, problems = [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                problems.append("line %d: not JSON (%s)" % (number, e))
                continue
            problems += ["line %d: %s" % (number, p) for p in check_record(obj)]
            records.append(obj)
    return records, problems
