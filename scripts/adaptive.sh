#!/usr/bin/env bash
# [adaptive] benchmark: `auto` (history PATs) against native for reduce and
# allreduce (or ADAPTIVE_COLLS) under four arrival patterns, each delay D = the balanced native
# time measured first (docs/results/adaptive.md).
#
#   scripts/adaptive.sh smpi PLATFORM P [COUNT]   # SimGrid SMPI, deterministic
#   scripts/adaptive.sh local P [COUNT]           # this machine, mpirun
#
# ADAPTIVE_COLLS="allreduce" chooses the collectives (default: reduce
# allreduce; any served collective, COUNT per rank as patcoll-bench's
# --count), ADAPTIVE_DELAY=SECONDS sets D instead of the balanced native
# time,
# ADAPTIVE_PATTERNS="one-late" to some imbalanced patterns. ADAPTIVE_WARMUP
# (default 16; rand-late at least 64) iterations before the measured ones:
# history PATs need 5, auto's measured feedback 8 more per pattern (3
# native probes, the lag of the exchange; docs/results/adaptive.md). PATCOLL_AUTO_FEEDBACK=0 measures the
# model alone. Each run's stderr (PATCOLL_VERBOSE=1: auto's choices and
# drops) goes to results/adaptive/*.log.
#
# The cost model is calibrated on the same platform first (patcoll-calibrate;
# kept in results/adaptive/<platform>.model). JSON lines and the tables go to
# results/adaptive/.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/adaptive.sh smpi PLATFORM P [COUNT] | local P [COUNT]}
shift
if [ "$mode" = smpi ]; then
  platform=${1:?platform}; procs=${2:?P}; count=${3:-1M}
  run() { scripts/smpi.sh --platform "$platform" -np "$procs" "$@"; }
  bench() { run -- "$@"; }
  calibrate() { run --calibrate -- --out "$1"; }
  iters=10
else
  platform=local; procs=${1:?P}; count=${2:-1M}
  scripts/build.sh >/dev/null
  flags=(--oversubscribe --mca mpi_yield_when_idle 1)
  [ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
  bench() {
    mpirun "${flags[@]}" -x PATCOLL_MODEL -x PATCOLL_VERBOSE -x PATCOLL_AUTO_FEEDBACK -np "$procs" \
      build/bin/patcoll-bench "$@"
  }
  calibrate() { mpirun "${flags[@]}" -np "$procs" build/bin/patcoll-calibrate --out "$1"; }
  iters=20
fi
out=results/adaptive
mkdir -p "$out"
model=$out/$platform-$procs.model
[ -s "$model" ] || calibrate "$model" >&2
export PATCOLL_MODEL=$PWD/$model
export PATCOLL_VERBOSE=1 PATCOLL_AUTO_FEEDBACK=${PATCOLL_AUTO_FEEDBACK:-1}
warmup=${ADAPTIVE_WARMUP:-16}
tag=$platform-$procs-$count
[ "$PATCOLL_AUTO_FEEDBACK" = 1 ] || tag=$tag-model-only

# bench with its stderr in LOG (shown if it fails)
logged() {
  local log=$1; shift
  bench "$@" 2>"$log" || { tail -20 "$log" >&2; exit 1; }
}

median_native() {  # the balanced native run time (seconds) of a JSON file
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("%.6f" % statistics.median(r["run_time_s"] for r in rows
                                  if r["collective"] == sys.argv[2] and r["algorithm"] == "native"))
PY
}

for coll in ${ADAPTIVE_COLLS:-reduce allreduce}; do
  logged "$out/$tag-$coll-none.log" --coll "$coll" --alg native,auto --count "$count" --pattern none \
         --iters "$iters" --warmup "$warmup" --pat-source history --out "$out/$tag-$coll-none.json"
  D=${ADAPTIVE_DELAY:-$(median_native "$out/$tag-$coll-none.json" "$coll")}
  echo "adaptive: $coll: D = $D s for the imbalanced patterns" >&2
  for pattern in ${ADAPTIVE_PATTERNS:-one-late alternating rand-late}; do
    # A new pattern every call: auto simulates one in 8 (docs/results/selection.md),
    # so learning the model's error takes ~50 calls instead of ~10.
    w=$warmup
    [ "$pattern" = rand-late ] && [ "$w" -lt 64 ] && w=64
    logged "$out/$tag-$coll-$pattern.log" --coll "$coll" --alg native,auto --count "$count" --pattern "$pattern" \
           --max-delay "$D" --iters "$iters" --warmup "$w" --pat-source history \
           --out "$out/$tag-$coll-$pattern.json"
  done
done
tables=()
for coll in ${ADAPTIVE_COLLS:-reduce allreduce}; do tables+=("$out"/$tag-$coll-*.json); done
/usr/bin/python3 tools/plot/adaptive_table.py "${tables[@]}"
