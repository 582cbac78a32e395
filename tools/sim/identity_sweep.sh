#!/usr/bin/env bash
# Byte-identity sweep of the simulator: every algorithm of every collective
# over small and odd P, three sizes, four PAPs, overlap on/off, both port
# models, non-commutative runs, the schedule-based reduces at P = 2000, and
# timelines. Writes OUT_DIR/{sweep.csv,timeline-*.csv} with the wall-clock
# columns (build_s, simulate_s: fields 25, 26) removed, so two builds of
# patcoll-sim can be compared with `diff -r` (docs/results/builders.md: a change to
# the simulator or a builder must leave every simulated time unchanged).
#   tools/sim/identity_sweep.sh PATH/TO/patcoll-sim OUT_DIR
set -euo pipefail
sim=$1 out=$2
mkdir -p "$out"
strip() { awk -F, 'BEGIN{OFS=","} {$25=""; $26=""; print}'; }
{
  for c in reduce allreduce scatter gather; do
    for ports in full_duplex unidirectional; do
      for ov in --overlap --no-overlap; do
        "$sim" --quiet --collective $c --algorithms all --procs 1,2,3,4,5,7,8,9,16,17,31,64,100,257 \
          --bytes 1K,64K,1M --pap none,rand-late:1ms,one-late:5d,alternating:200us --ports $ports $ov --no-header
      done
    done
    "$sim" --quiet --collective $c --algorithms all --procs 2,5,9,16,33 --bytes 64K --root 5 --segments 7 \
      --non-commutative --pap none,one-late:5d --no-header 2>/dev/null || true
  done
  "$sim" --quiet --collective reduce --algorithms clairvoyant,uni_greedy,bi_greedy,chain,binary --procs 2000 \
    --bytes 64K,1M --pap none,rand-late:1ms --no-header
} | strip >"$out/sweep.csv"
for a in reduce:clairvoyant reduce:uni_greedy reduce:bi_greedy reduce:binomial reduce:chain allreduce:rabenseifner \
  allreduce:clairvoyant scatter:sbn gather:sls; do
  for ov in --overlap --no-overlap; do
    "$sim" --quiet --collective ${a%%:*} --algorithms ${a#*:} --procs 37 --bytes 256K --pap rand-late:20us $ov \
      --timeline-csv "$out/timeline-${a/:/-}$ov.csv" >/dev/null
  done
done
wc -l "$out"/sweep.csv | awk '{print $1 " sweep lines"}'
