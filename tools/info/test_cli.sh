#!/bin/sh
# patcoll-info contract: every PATCOLL_* variable of the registry and every
# algorithm of the catalogue listed; a bad value shown as a problem; an
# unknown argument is exit 2 with one line on stderr.
info="$1"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
out=$("$info" --parsable) || fail "--parsable exit $?"
for key in 'version:' 'mpi:built:' 'mpi:running:' \
           'variable:PATCOLL_SEGMENTS:integer::library:' 'variable:PATCOLL_SCHEDULE_CACHE:integer:16:library:' \
           'variable:PATCOLL_PREDICTOR:choice:edge:runtime:' 'variable:PATCOLL_PATS:choice:none:preload:' \
           'variable:PATCOLL_MODEL:path::library:' 'algorithm:reduce:native:none:' \
           'algorithm:reduce:clairvoyant:commutative,pap_aware,schedule_based:' 'algorithm:gather:sbn:pap_aware:' \
           'algorithm:allreduce:ring:commutative:' 'algorithm:scatter:bnom:none:'; do
  case "$out" in *"$key"*) ;; *) fail "--parsable lacks '$key'" ;; esac
done
[ "$(echo "$out" | grep -c '^variable:PATCOLL_')" -ge 18 ] || fail "fewer than 18 variables"
out=$(PATCOLL_SEGMENTS=abc "$info") || fail "human exit $?"
case "$out" in *"problem: PATCOLL_SEGMENTS='abc' is not an integer >= 1"*) ;; *) fail "no problem line for PATCOLL_SEGMENTS=abc" ;; esac
case "$out" in *"current: abc (invalid)"*) ;; *) fail "no current value for PATCOLL_SEGMENTS=abc" ;; esac
"$info" --bogus >/dev/null 2>/tmp/info_cli_err.$$
rc=$?
lines=$(wc -l < /tmp/info_cli_err.$$)
rm -f /tmp/info_cli_err.$$
[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] || fail "--bogus: exit $rc, $lines stderr lines"
[ "$failures" -eq 0 ] && echo "info_cli: all passed"
exit "$failures"
