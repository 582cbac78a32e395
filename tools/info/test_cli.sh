#!/bin/sh
# patcoll-info contract: every PATCOLL_* variable of the registry and every
# algorithm of the catalogue listed; a bad value shown as a problem; an
# unknown argument is exit 2 with one line on stderr.
info="$1"
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
out=$("$info" --parsable) || fail "--parsable exit $?"
for key in 'version:' 'mpi:built:' 'mpi:running:' \
           'variable:PATCOLL_SEGMENTS:type:integer' 'variable:PATCOLL_SCHEDULE_CACHE:default:16' \
           'variable:PATCOLL_PREDICTOR:scope:runtime' 'variable:PATCOLL_PATS:default:none' \
           'variable:PATCOLL_MODEL:type:path' 'variable:PATCOLL_MODEL:valid:1' 'variable:PATCOLL_REDUCE:help:' \
           'algorithm:reduce:native:restrictions:none' 'algorithm:reduce:clairvoyant:restrictions:' \
           'algorithm:allreduce:ring:help:'; do
  case "$out" in *"$key"*) ;; *) fail "--parsable lacks '$key'" ;; esac
done
[ "$(echo "$out" | grep -c '^variable:PATCOLL_[A-Z_]*:help:')" -ge 18 ] || fail "fewer than 18 variables"
# every invalid value is marked, and the exit status says so
out=$(PATCOLL_SEGMENTS=abc "$info"); rc=$?
[ "$rc" -eq 1 ] || fail "PATCOLL_SEGMENTS=abc: exit $rc, not 1"
case "$out" in *"problem: PATCOLL_SEGMENTS='abc' is not an integer >= 1"*) ;; *) fail "no problem line for PATCOLL_SEGMENTS=abc" ;; esac
case "$out" in *"current: abc (invalid)"*) ;; *) fail "no current value for PATCOLL_SEGMENTS=abc" ;; esac
out=$(PATCOLL_REDUCE=nonsense "$info"); rc=$?
[ "$rc" -eq 1 ] || fail "PATCOLL_REDUCE=nonsense: exit $rc, not 1"
case "$out" in *"problem: PATCOLL_REDUCE='nonsense' is not a reduce algorithm"*) ;; *) fail "no problem line for PATCOLL_REDUCE=nonsense" ;; esac
out=$(PATCOLL_MODEL=/nonexistent/patcoll.model "$info" --parsable); rc=$?
[ "$rc" -eq 1 ] || fail "an unreadable PATCOLL_MODEL: exit $rc, not 1"
case "$out" in *"variable:PATCOLL_MODEL:valid:0"*"variable:PATCOLL_MODEL:problem:"*"cannot be read"*) ;; *) fail "an unreadable PATCOLL_MODEL is not marked" ;; esac
PATCOLL_REDUCE=binomial PATCOLL_ALLREDUCE=auto "$info" >/dev/null || fail "valid values: exit $?"
"$info" --bogus >/dev/null 2>/tmp/info_cli_err.$$
rc=$?
lines=$(wc -l < /tmp/info_cli_err.$$)
rm -f /tmp/info_cli_err.$$
[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] || fail "--bogus: exit $rc, $lines stderr lines"
[ "$failures" -eq 0 ] && echo "info_cli: all passed"
exit "$failures"
