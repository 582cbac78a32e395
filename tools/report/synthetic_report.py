#!/usr/bin/env python3
"""A synthetic PATCOLL_REPORT file, for timing patcoll-report at scale.

    synthetic_report.py OUT.json [--procs 128] [--sites 100] [--calls 100000] [--seed 1]

The calls are spread evenly over the sites (all sampled up to the cap of
1000 per site); the sites cycle through the four collectives, sizes from 8 B
to 1 MiB, and arrival patterns: one rank late by 1-20 ms, every rank
uniformly late by up to 5 ms, and balanced (50 us of noise).
"""
import argparse
import array
import base64
import json
import random
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--procs", type=int, default=128)
    parser.add_argument("--sites", type=int, default=100)
    parser.add_argument("--calls", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    p = args.procs
    collectives = ["allreduce", "reduce", "gather", "scatter"]
    sizes = [8, 1024, 65536, 1 << 20]
    per_site = args.calls // args.sites
    sites = []
    for k in range(args.sites):
        collective, nbytes = collectives[k % 4], sizes[(k // 4) % 4]
        kind = k % 3
        late_rank, delay = rng.randrange(p), rng.uniform(1e-3, 20e-3)
        samples = min(per_site, 1000)
        entry, exit_ = array.array("d"), array.array("d")
        t = 0.0
        for _ in range(samples):
            row = [rng.uniform(0, 50e-6) for _ in range(p)]
            if kind == 0:
                row[late_rank] += delay
            elif kind == 1:
                row = [x + rng.uniform(0, 5e-3) for x in row]
            last = max(row) + 1e-4 + nbytes * 1e-9
            entry.extend(t + x for x in row)
            exit_.extend(t + last for _ in row)
            t += last + 1e-3
        if sys.byteorder != "little":
            entry.byteswap()
            exit_.byteswap()
        per_rank_time = (sum(exit_) - sum(entry)) / p * per_site / samples
        sites.append({
            "id": k + 1, "communicator": 0, "collective": collective, "bytes": nbytes, "first_call": k,
            "call_site": f"solver+0x{0x100 + 16 * k:x} (synthetic)", "call_sites": [f"solver+0x{0x100 + 16 * k:x}"] * p,
            "calls": [per_site] * p, "served_by": {"native": per_site * p},
            "time_s": [per_rank_time] * p, "min_s": [0.0] * p, "max_s": [0.0] * p,
            "samples": {"count": samples, "t0": 0.0, "call": list(range(samples)),
                        "encoding": "base64 float64 little-endian, calls x ranks, seconds after t0",
                        "entry": base64.b64encode(entry.tobytes()).decode(),
                        "exit": base64.b64encode(exit_.tobytes()).decode()},
            "trace": None,
        })
    report = {"format": "patcoll-report", "version": 1, "complete": True, "world_size": p, "clock": "synthetic",
              "samples_cap": 1000, "hosts": 1,
              "communicators": [{"id": 0, "name": "MPI_COMM_WORLD", "size": p, "instance": 0, "inter": False,
                                 "members": list(range(p))}],
              "sites": sites}
    with open(args.out, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main()
