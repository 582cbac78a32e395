#!/bin/sh
# Runs an MPI test driver under valgrind (memcheck) and fails when a leak
# or an invalid access has a frame in patcoll's own code (Open MPI's own
# leaks at MPI_Init/MPI_Finalize are not ours and are ignored).
# usage: valgrind_check.sh <valgrind> <mpiexec and flags...> -- <binary>
set -u
valgrind=$1; shift
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
binary=$1
# A frame is patcoll's when it is in libpatcoll*, names a patcoll:: function
# (Release builds carry symbols but no line info; the drivers link core and
# the executor statically) or, in builds with -g, a file under src/ (valgrind
# prints the path after the source directory for those).
src_dir=$(cd "$(dirname "$0")/../.." && pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# shellcheck disable=SC2086
$launcher -np 2 "$valgrind" --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 --fullpath-after="$src_dir/" \
  --log-file="$logs/vg.%p.log" "$binary" || { echo "the driver failed under valgrind"; exit 1; }
ours='[(]src/[^):]*:[0-9]|[(]in [^)]*/libpatcoll[^)/]*[)]|: patcoll::'
status=0
for f in "$logs"/vg.*.log; do
  bad=$(awk -v ours="$ours" '
    /are (definitely|indirectly) lost|Invalid (read|write)|Invalid free|Mismatched free/ { rec = $0; next }
    /^==[0-9]+== *$/ { rec = "" }
    rec != "" && $0 ~ ours { print rec; print $0; rec = "" }' "$f")
  if [ -n "$bad" ]; then echo "$bad"; status=1; fi
done
[ $status -eq 0 ] && echo "valgrind: nothing in patcoll's code leaked or accessed memory wrongly"
exit $status
