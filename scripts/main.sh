#!/usr/bin/env bash
# The main job: bootstraps and builds patcoll, then runs the default
# benchmark scenario — every registered reduce and allreduce algorithm
# against native on 8 ranks, 1 Mi floats, rank P−1 late by 20 ms (one-late),
# results checked against native — prints the summary table (medians,
# bootstrap CIs, ratios to native, permutation-test p-values), writes the
# JSON lines and a PNG under results/ and prints the PNG's path.
# Extra arguments go to patcoll-bench (e.g. --iters 40, --pattern rand-late).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
mkdir -p results
flags=(--oversubscribe --mca mpi_yield_when_idle 1)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
# The schedule-based algorithms read the cost model: measure it on these
# 8 ranks first (docs/results/scheduled-reduce.md).
mpirun.openmpi "${flags[@]}" -np 8 build/bin/patcoll-calibrate --out results/model.txt --repetitions 30 >/dev/null
echo "cost model: $(grep -v '^#' results/model.txt | tr '\n' ' ')"
mpirun.openmpi "${flags[@]}" -x PATCOLL_MODEL="$(pwd)/results/model.txt" -np 8 build/bin/patcoll-bench \
  --coll reduce,allreduce --count 1M --pattern one-late --max-delay 20ms --iters 20 --warmup 2 \
  --out results/main.jsonl "$@"
# The Debian interpreter has numpy/scipy/matplotlib (python3-* packages).
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
"$python" tools/plot.py results/main.jsonl -o results/main.png >/dev/null
echo "JSON lines: $(pwd)/results/main.jsonl"
echo "plot: $(pwd)/results/main.png"
