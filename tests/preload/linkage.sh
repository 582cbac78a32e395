#!/bin/sh
# The shim holds one copy of patcoll's core: it carries the library's code
# and links MPI, never libpatcoll.so (which holds a second core), and it
# exports only the MPI entry points it serves (MPI_*, the Fortran mpi_*
# names) and the PAT_* API; nothing of patcoll's C++ internals.
#   linkage.sh LIBPATCOLL-PRELOAD.SO
shim="$1"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
needed=$(readelf -d "$shim" | awk '/NEEDED/ {print $NF}')
case "$needed" in *libpatcoll*) fail "the shim links $(echo "$needed" | grep libpatcoll | tr -d '\n')" ;; esac
case "$needed" in *libmpi*) ;; *) fail "the shim does not link MPI: $needed" ;; esac
exports=$(nm -D --defined-only "$shim" | awk '$2 ~ /^[TtWwVvDdBbRr]$/ {print $3}')
internals=$(echo "$exports" | c++filt | grep 'patcoll::' || true)
[ -z "$internals" ] || fail "the shim exports patcoll internals: $(echo "$internals" | head -5 | tr '\n' ' ')"
for symbol in MPI_Reduce MPI_Allreduce MPI_Scatter MPI_Gather PAT_Reduce PAT_Get_version; do
  echo "$exports" | grep -qx "$symbol" || fail "the shim does not export $symbol"
done
core=$(nm -C "$shim" | grep -c 'patcoll::core::config::settings()' || true)
[ "$core" -ge 1 ] || fail "the shim does not carry core (patcoll::core::config::settings)"
[ "$failures" -eq 0 ] && echo "preload linkage: MPI only, $(echo "$exports" | grep -c '^PAT_') PAT_* and $(echo "$exports" | grep -ci '^mpi_') MPI entry points exported, core inside"
exit "$failures"
