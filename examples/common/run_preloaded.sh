#!/bin/bash
# Runs an application example unmodified under the preload shim (Open MPI's
# mpirun): its plain MPI collective served by a patcoll algorithm with
# history PATs. Passes when the example's own check passed ("check ...: ok")
# and the shim said (PATCOLL_VERBOSE=2) that the algorithm served the
# collective with history PATs and that the PATs were updated.
#
#   run_preloaded.sh <shim.so> <collective> <algorithm> <mpirun> [mpirun args...] <program> [args...]
set -u
shim=$1 collective=$2 algorithm=$3
shift 3
mpirun=$1
shift
variable=PATCOLL_$(echo "$collective" | tr '[:lower:]' '[:upper:]')
work=$(mktemp -d "${TMPDIR:-/tmp}/patcoll-app.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$mpirun" -x LD_PRELOAD="$shim" -x "$variable=$algorithm" -x PATCOLL_PATS=history -x PATCOLL_HISTORY_PERIOD=2 \
  -x PATCOLL_VERBOSE=2 "$@" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/out"
cat "$work/err" >&2
mpi_name="MPI_$(echo "${collective:0:1}" | tr '[:lower:]' '[:upper:]')${collective:1}"
failures=0
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc"; failures=$((failures + 1)); }
grep -q '^check .*: ok$' "$work/out" || { echo "FAIL: the example's check did not pass"; failures=$((failures + 1)); }
grep -q "$mpi_name on MPI_COMM_WORLD[^:]*: $algorithm, because .*PATs: history" "$work/err" ||
  { echo "FAIL: the shim did not report $algorithm serving $mpi_name with history PATs"; failures=$((failures + 1)); }
grep -Eq "history on MPI_COMM_WORLD[^:]*: .* [1-9][0-9]* PAT updates" "$work/err" ||
  { echo "FAIL: no history PAT update on MPI_COMM_WORLD"; failures=$((failures + 1)); }
echo "$((failures == 0 ? 1 : 0)) passed, $failures failed"
[ "$failures" -eq 0 ]
