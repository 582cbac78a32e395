#!/usr/bin/env bash
# Bootstraps, builds and runs the main job: every registered reduce and
# allreduce algorithm against native on 8 ranks, 1 Mi floats, one rank late
# by 20 ms, results checked against native, a table of times on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
flags=(--oversubscribe --mca mpi_yield_when_idle 1)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
mpirun.openmpi "${flags[@]}" -np 8 build/bin/patcoll-bench \
  --coll reduce,allreduce --count 1M --pattern one-late --max-delay 20ms --iters 10 --warmup 2 "$@"
