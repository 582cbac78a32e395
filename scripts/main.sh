#!/usr/bin/env bash
# The main job: bootstraps and builds patcoll, then runs the default
# benchmark scenario — every registered reduce and allreduce algorithm, the
# recommended setting (`auto` with the cost model calibrated here) and the
# MPI library's own (`native`) on 8 ranks, 1 Mi floats, rank P−1 late by
# 20 ms (one-late), results checked against native — prints the summary
# table (medians, bootstrap CIs, ratios to native, permutation-test
# p-values, the `bound` row), writes the JSON lines and a PNG under results/
# and prints the PNG's path. A second, shorter run shows the recommended
# setting as an unmodified program gets it under the shim: `auto` with
# arrival times learned from the call history (--pat-source history)
# against native.
# Extra arguments go to the first patcoll-bench run (e.g. --iters 40, --pattern rand-late).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# Only what this job runs: the calibration tool, the benchmark, the plot.
cmake -S . -B build -G Ninja \
  -DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpirun.openmpi >/dev/null
cmake --build build -j "$(nproc)" --target patcoll-bench patcoll-calibrate
mkdir -p results
flags=(--oversubscribe --mca mpi_yield_when_idle 1)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
# The schedule-based algorithms and `auto` read the cost model: measure it
# on these 8 ranks first (docs/results/scheduled-reduce.md).
mpirun.openmpi "${flags[@]}" -np 8 build/bin/patcoll-calibrate --out results/model.txt --repetitions 30 >/dev/null
echo "cost model: $(grep -v '^#' results/model.txt | tr '\n' ' ')"
# Every reduce and allreduce algorithm of the catalogue, and auto.
algs=$(build/bin/patcoll-bench --list | awk '$1 == "reduce" || $1 == "allreduce" { print $2 }' | sort -u | paste -sd, -)
echo "== every algorithm, native and auto (arrival times given: the bench's oracle PATs)"
mpirun.openmpi "${flags[@]}" -x PATCOLL_MODEL="$(pwd)/results/model.txt" -np 8 build/bin/patcoll-bench \
  --coll reduce,allreduce --alg "$algs,auto" --count 1M --pattern one-late --max-delay 20ms --iters 20 --warmup 2 \
  --out results/main.jsonl "$@"
echo "== the recommended setting as the shim runs it: auto, arrival times learned from the call history"
mpirun.openmpi "${flags[@]}" -x PATCOLL_MODEL="$(pwd)/results/model.txt" -np 8 build/bin/patcoll-bench \
  --coll reduce,allreduce --alg native,auto --pat-source history --count 1M --pattern one-late --max-delay 20ms \
  --iters 12 --warmup 8 --out results/main-history.jsonl
# The Debian interpreter has numpy/scipy/matplotlib (python3-* packages).
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
"$python" tools/plot.py results/main.jsonl -o results/main.png >/dev/null
echo "JSON lines: $(pwd)/results/main.jsonl $(pwd)/results/main-history.jsonl"
echo "plot: $(pwd)/results/main.png"
