#!/bin/sh
# patcoll-sched command-line contract: JSON keys, [M] Table 2 round count,
# exit code 2 and one line on stderr for bad input.
sched="$1"
failures=0
check() {  # check NAME COMMAND... : expects success
  name="$1"; shift
  if ! out=$("$@" 2>&1); then echo "FAIL $name: exit $?: $out"; failures=$((failures + 1)); fi
}
expect_bad() {  # expect_bad NAME ARGS...
  name="$1"; shift
  "$sched" "$@" >/dev/null 2>/tmp/sched_cli_err.$$
  rc=$?
  lines=$(wc -l < /tmp/sched_cli_err.$$)
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ]; then
    echo "FAIL $name: exit $rc, $lines stderr lines"; failures=$((failures + 1))
  fi
  rm -f /tmp/sched_cli_err.$$
}
table2='clairvoyant --procs 4 --segments 4 --arrivals 0,0,0,0 --round-time 1 --root 0 --format json'
for gen in linear pairing segtree; do
  json=$("$sched" $table2 --generator $gen) || { echo "FAIL $gen exit"; failures=$((failures + 1)); }
  for key in '"algorithm"' '"procs": 4' '"segments": 4' '"root": 0' '"rounds": 5' '"ranks"' '"rank": 3' '"recv": [[0, 1, 0]' '"send": [[0, 1, 1]'; do
    case "$json" in *"$key"*) ;; *) echo "FAIL $gen json lacks $key: $json"; failures=$((failures + 1)) ;; esac
  done
done
printf '0\n0\n0\n5\n' > /tmp/sched_cli_pat.$$
json=$("$sched" clairvoyant --procs 4 --segments 4 --arrivals-file /tmp/sched_cli_pat.$$ --format json)
case "$json" in *'"rounds": 9'*) ;; *) echo "FAIL Fig. 8 from a file: $json"; failures=$((failures + 1)) ;; esac
rm -f /tmp/sched_cli_pat.$$
check uniform "$sched" clairvoyant --procs 16 --segments 8 --pattern uniform:3 --round-time 0.1
check one-late "$sched" clairvoyant --procs 16 --segments 8 --pattern one-late:2.5
json=$("$sched" bi_greedy --procs 16 --segments 5 --alpha 2 --gamma 1 --segment-bytes 1 --format json)
case "$json" in *'"completion_time": 24'*) ;; *) echo "FAIL bi_greedy completion: $json"; failures=$((failures + 1)) ;; esac
check uni_greedy_table "$sched" uni_greedy --procs 15 --segments 5 --alpha 2 --gamma 1
check program "$sched" program --coll reduce --alg clairvoyant --procs 4 --count 8 --root 1
check program_json "$sched" program --coll reduce --alg linear --procs 3 --count 2 --format json
expect_bad procs0 clairvoyant --procs 0 --segments 4
expect_bad arrivals_count clairvoyant --procs 4 --segments 4 --arrivals 0,0,0
expect_bad negative_d clairvoyant --procs 4 --segments 4 --round-time -1
expect_bad root_range clairvoyant --procs 4 --segments 4 --root 4
expect_bad generator clairvoyant --procs 4 --segments 4 --generator heap
expect_bad option clairvoyant --procs 4 --bogus 1
expect_bad number clairvoyant --procs four
expect_bad greedy_root uni_greedy --procs 4 --root -1
expect_bad greedy_beta bi_greedy --procs 4 --beta -1
expect_bad command schedule --procs 4
expect_bad algorithm program --coll reduce --alg nonesuch --procs 4
expect_bad file clairvoyant --procs 4 --arrivals-file /nonexistent/file
[ "$failures" -eq 0 ] && echo "patcoll-sched CLI: all checks passed"
exit "$failures"
