#!/bin/bash
# The second mode of the application examples: the program unmodified (its
# `mpi` mode: plain MPI_Gather / MPI_Allreduce, no PAT_* call) under the
# preload shim, one mpirun per algorithm, the algorithms interleaved over
# `repeat` passes (A B C A B C ...) so the machine's drift hits all alike.
# `none` runs without the shim (the MPI library alone).
#
#   shim_modes.sh <np> <repeat> <gather|allreduce> "<none native ls sls auto ...>" <program> [args...]
#
# Prints, per pass and algorithm, the program's `mpi` row (median over its
# own rounds [min, max] of total time, collective run time and elapsed time).
# Environment: MPIRUN (default mpirun), PATCOLL_PRELOAD (default
# build/lib/libpatcoll-preload.so beside the program's bin/).
set -u
np=$1 repeat=$2 collective=$3 algorithms=$4
shift 4
program=$1
shift
shim=${PATCOLL_PRELOAD:-$(cd "$(dirname "$program")/.." && pwd)/lib/libpatcoll-preload.so}
variable=PATCOLL_$(echo "$collective" | tr '[:lower:]' '[:upper:]')
flags=(--oversubscribe --mca mpi_yield_when_idle 1)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
status=0
for pass in $(seq 1 "$repeat"); do
  for algorithm in $algorithms; do
    if [ "$algorithm" = none ]; then
      env=()
    else
      env=(-x LD_PRELOAD="$shim" -x "$variable=$algorithm" -x PATCOLL_PATS=history)
    fi
    out=$("${MPIRUN:-mpirun}" "${flags[@]}" "${env[@]}" -np "$np" "$program" "$@" --algs=mpi 2>&1)
    row=$(echo "$out" | grep '^mpi ')
    check=$(echo "$out" | grep '^check ')
    case "$check" in *": ok") ;; *) status=1; echo "$out" >&2 ;; esac
    printf 'pass %d %-13s %s\n' "$pass" "$algorithm" "${row#mpi }"
  done
done
exit $status
