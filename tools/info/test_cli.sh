#!/bin/sh
# patcoll-info contract: every PATCOLL_* variable of the registry and every
# algorithm of the catalogue listed (restrictions, capabilities and aliases
# as separate attributes, background rows among them); a bad value shown as a problem; an
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
           'algorithm:allreduce:ring:help:' 'algorithm:reduce:native:capabilities:none' \
           'algorithm:reduce:native:aliases:none' 'algorithm:reduce:clairvoyant:restrictions:commutative' \
           'algorithm:reduce:clairvoyant:capabilities:pap_aware,schedule_based' \
           'algorithm:reduce:uni_greedy:capabilities:pap_aware,schedule_based,segment_sizes' \
           'algorithm:reduce:radix_k:capabilities:radix' 'algorithm:gather:sbn:capabilities:pap_aware' \
           'algorithm:scatter:binomial:aliases:bnom' 'algorithm:scatter:linear:aliases:lin' \
           'algorithm:gather:linear_sync:aliases:ls' 'algorithm:gather:binomial:restrictions:none' \
           'algorithm:scatter:bsln:capabilities:pap_aware,background' 'algorithm:scatter:bsbn:capabilities:pap_aware,background' \
           'algorithm:gather:bsls:capabilities:pap_aware,background' 'algorithm:gather:bsbn:capabilities:pap_aware,background'; do
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
PATCOLL_SCATTER=bnom PATCOLL_GATHER=ls "$info" >/dev/null || fail "aliases as values: exit $?"
PATCOLL_SCATTER=ls "$info" >/dev/null && fail "gather's alias ls accepted for PATCOLL_SCATTER"
# every algorithm has its four attributes; the human table has the capabilities and aliases columns
out=$("$info" --parsable)
for attribute in restrictions capabilities aliases help; do
  [ "$(echo "$out" | grep -c "^algorithm:[a-z]*:[a-z_0-9]*:$attribute:")" -eq "$(echo "$out" | grep -c '^algorithm:[a-z]*:[a-z_0-9]*:help:')" ] ||
    fail "not every algorithm has a $attribute attribute"
done
human=$("$info")
echo "$human" | grep -qE '^  scatter +binomial +none +none +bnom ' || fail "human table lacks the scatter binomial row with its alias"
echo "$human" | grep -qE '^  gather +bsls +none +pap_aware,background +none ' || fail "human table lacks gather bsls as a background row"
"$info" --bogus >/dev/null 2>/tmp/info_cli_err.$$
rc=$?
lines=$(wc -l < /tmp/info_cli_err.$$)
rm -f /tmp/info_cli_err.$$
[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] || fail "--bogus: exit $rc, $lines stderr lines"
[ "$failures" -eq 0 ] && echo "info_cli: all passed"
exit "$failures"
