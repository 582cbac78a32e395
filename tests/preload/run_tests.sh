#!/bin/bash
# Runs the preload shim tests: ordinary MPI programs (collectives, threads,
# bench) with and without libpatcoll-preload.so, many cases per mpirun.
#
#   run_tests.sh <case> <openmpi|hydra> <shim.so> <bindir> <np> <mpiexec> [mpiexec flags...]
#
# Cases:
#   native      the shim with nothing selected changes nothing: same digests
#               as without it, no output from the shim
#   algorithms  every registered algorithm of every collective in turn
#               (lists read from the shim's own message about an unknown
#               name), PATCOLL_VERBOSE=1: digests equal to the run without
#               the shim, one verbose line per communicator and collective
#   unknown     PATCOLL_ALLREDUCE=<unknown>: one message on stderr (rank 0),
#               then native: digests unchanged; PATCOLL_SEGMENTS=abc: the
#               calls fail (the job stops) with one line naming it; an
#               unreadable PATCOLL_MODEL: one line
#   aliases     every alias of the catalogue (scatter/gather lin, bnom; gather
#               ls) as PATCOLL_<COLL>: digests equal to the run without the
#               shim, the verbose line names the canonical algorithm
#   threads     MPI_THREAD_MULTIPLE program, two threads per rank, under the
#               shim with patcoll algorithms and history PATs
#   history     iterative program with a late rank, PATCOLL_PATS=history,
#               clairvoyant reduce / slt allreduce: results checked, the
#               history statistics line printed
#   sites       arrival history per collective and call site: the last rank
#               late by 20 ms at one MPI_Allreduce call site, balanced at the
#               MPI_Reduce after it and at a second MPI_Allreduce site; the
#               history learns 20 ms (within 20 %) at the first and the
#               last rank not late (by less than a quarter) at the others,
#               under the shim and through the library's PAT_* without it; with patcoll serving every call, the
#               blocking collectives reaching PMPI_* do not grow with the
#               number of calls (no agreement round per PAT update)
#   nonblocking MPI_I<coll> and (MPI-4 libraries) MPI_<Coll>_init with every
#               completion call (nonblocking.c): correct results without
#               the shim and under it with patcoll algorithms (classic,
#               PAP-aware, auto), the verbose line proving patcoll served
#               them, MPI_Request_free on an active collective refused
#   python      an mpi4py program (mpi4py_allreduce.py) under /usr/bin/python3
#               with PATCOLL_ALLREDUCE=ring and with auto: exact results, and
#               the verbose line shows the shim served MPI_Allreduce/MPI_Reduce
#   fortran     the Fortran program (fortran.F90) built with mpif.h, use mpi
#               and use mpi_f08: under the shim with patcoll algorithms
#               (classic and PAP-aware) the digests equal the run without
#               it, every call returns MPI_SUCCESS, and PATCOLL_VERBOSE
#               shows each of the four collectives served by patcoll (the
#               proof that the Fortran calls were intercepted)
set -u
case_name=$1 launcher=$2 shim=$3 bindir=$4 np=$5
shift 5
mpiexec=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/patcoll-preload-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# run <tag> <program and args> -- <VAR=VALUE>...   (stdout -> $work/<tag>.out, stderr -> .err)
run() {
  local tag=$1; shift
  local program=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do program+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  local env=()
  for assignment in "$@"; do
    if [ "$launcher" = openmpi ]; then env+=(-x "$assignment")
    else env+=(-genv "${assignment%%=*}" "${assignment#*=}"); fi
  done
  "${mpiexec[@]}" "${env[@]}" -np "$np" "${program[@]}" >"$work/$tag.out" 2>"$work/$tag.err"
  local rc=$?
  echo "[$tag] exit $rc: $(grep -E 'passed, [0-9]+ failed|SKIP' "$work/$tag.out" | tail -1)"
  return $rc
}

digests() { grep '^digest ' "$work/$1.out"; }

same_digests() {  # <tag> <reference tag>
  if [ -z "$(digests "$2")" ]; then fail "$2: no digests"; return; fi
  if [ "$(digests "$1")" != "$(digests "$2")" ]; then
    fail "$1: results differ from the run without the shim"
    diff <(digests "$2") <(digests "$1") | head -5
  fi
}

passed() {  # <tag> <exit code>
  if [ "$2" -ne 0 ] || ! grep -q ' 0 failed' "$work/$1.out"; then
    fail "$1 (exit $2)"
    head -20 "$work/$1.err"
  fi
}

collectives="$bindir/patcoll-preload-collectives"
# Argument-error cases only where the MPI library checks arguments (Open MPI).
if [ "$launcher" = openmpi ]; then collectives_args=(--errors); else collectives_args=(); fi
baseline() { run base "$collectives" "${collectives_args[@]}" --; passed base $?; }

case "$case_name" in
native)
  baseline
  run shim "$collectives" "${collectives_args[@]}" -- "LD_PRELOAD=$shim"; passed shim $?
  same_digests shim base
  if grep -q patcoll "$work/shim.err"; then fail "the shim printed with nothing selected"; head -5 "$work/shim.err"; fi
  ;;

unknown)
  baseline
  run unknown "$collectives" "${collectives_args[@]}" -- "LD_PRELOAD=$shim" PATCOLL_ALLREDUCE=no_such_algorithm; passed unknown $?
  same_digests unknown base
  lines=$(grep -c 'PATCOLL_ALLREDUCE=no_such_algorithm is not a allreduce algorithm; MPI_Allreduce stays native' \
          "$work/unknown.err")
  [ "$lines" = 1 ] || { fail "expected one message about the unknown name on stderr, got $lines"; cat "$work/unknown.err"; }
  # Misconfigurations are one line, from rank 0, naming the variable and
  # its value: a malformed PATCOLL_SEGMENTS is the calls' error (MPI's
  # handler: the job stops), never a silent native run; an unreadable
  # PATCOLL_MODEL is reported once and the built-in model used.
  sites="$bindir/patcoll-preload-sites"
  run segments "$sites" 2 0 -- "LD_PRELOAD=$shim" PATCOLL_REDUCE=clairvoyant PATCOLL_SEGMENTS=abc
  rc=$?
  lines=$(grep -c "PATCOLL_SEGMENTS='abc'" "$work/segments.err")
  [ "$rc" -ne 0 ] && [ "$lines" = 1 ] ||
    { fail "PATCOLL_SEGMENTS=abc: exit $rc and $lines lines naming it (expected an error and one line)"; cat "$work/segments.err"; }
  run model "$sites" 2 0 -- "LD_PRELOAD=$shim" PATCOLL_REDUCE=clairvoyant PATCOLL_MODEL=/nonexistent/patcoll.model
  passed model $?
  lines=$(grep -c "PATCOLL_MODEL file '/nonexistent/patcoll.model'" "$work/model.err")
  [ "$lines" = 1 ] || { fail "an unreadable PATCOLL_MODEL: $lines lines, not 1"; cat "$work/model.err"; }
  ;;

algorithms)
  baseline
  # The shim names the registered algorithms when a name is unknown.
  run list "$collectives" "${collectives_args[@]}" -- "LD_PRELOAD=$shim" PATCOLL_REDUCE=? PATCOLL_ALLREDUCE=? PATCOLL_SCATTER=? PATCOLL_GATHER=? \
      PATCOLL_BCAST=? PATCOLL_ALLGATHER=? PATCOLL_ALLGATHERV=? PATCOLL_ALLTOALL=? PATCOLL_REDUCE_SCATTER_BLOCK=? \
      PATCOLL_REDUCE_SCATTER=?
  declare -A lists
  longest=0
  for coll in reduce allreduce scatter gather bcast allgather allgatherv alltoall reduce_scatter_block reduce_scatter; do
    lists[$coll]=$(grep -o "not a $coll algorithm; [^(]*(known: [^)]*)" "$work/list.err" | head -1 |
                   sed 's/.*known: \(.*\))/\1/')
    [ -n "${lists[$coll]}" ] || { fail "no algorithm list for $coll"; cat "$work/list.err"; exit 1; }
    n=$(wc -w <<<"${lists[$coll]}")
    [ "$n" -gt "$longest" ] && longest=$n
  done
  picks=$(seq 0 $((longest - 1)))
  # MPICH busy-polls: on an oversubscribed 2-core machine one run takes ~7 s,
  # so under hydra two combinations (the library's own MPI tests cover
  # every algorithm there).
  [ "$launcher" = hydra ] && picks="2 9"
  for i in $picks; do
    vars=("LD_PRELOAD=$shim" PATCOLL_VERBOSE=1)
    declare -A pick
    for coll in reduce allreduce scatter gather bcast allgather allgatherv alltoall reduce_scatter_block reduce_scatter; do
      read -r -a names <<<"${lists[$coll]}"
      pick[$coll]=${names[$((i % ${#names[@]}))]}
      vars+=("PATCOLL_${coll^^}=${pick[$coll]}")
    done
    tag="r${pick[reduce]}-a${pick[allreduce]}-s${pick[scatter]}-g${pick[gather]}-b${pick[bcast]}-ag${pick[allgather]}-agv${pick[allgatherv]}-t${pick[alltoall]}-rsb${pick[reduce_scatter_block]}-rs${pick[reduce_scatter]}"
    run "$tag" "$collectives" "${collectives_args[@]}" -- "${vars[@]}"; passed "$tag" $?
    same_digests "$tag" base
    for coll in Reduce Allreduce Scatter Gather Bcast Allgather Allgatherv Alltoall Reduce_scatter_block Reduce_scatter; do
      lc=${coll,,}
      # exactly one line per communicator and serving algorithm, from rank 0
      # auto names what it chose
      served="${pick[$lc]}|native"; [ "${pick[$lc]}" = auto ] && served="[a-z_0-9]+"
      if ! grep -qE "MPI_$coll on MPI_COMM_WORLD \($np ranks\): ($served), because PATCOLL_${lc^^}=${pick[$lc]}" \
           "$work/$tag.err"; then
        fail "$tag: no verbose line for MPI_$coll on MPI_COMM_WORLD"; grep "MPI_$coll" "$work/$tag.err" | head -3
      fi
      dup=$(grep "MPI_$coll on " "$work/$tag.err" | sort | uniq -d | head -1)
      [ -z "$dup" ] || fail "$tag: verbose line printed twice: $dup"
    done
    grep -q "MPI_Allreduce on .*intercommunicator): native, because intercommunicators" "$work/$tag.err" ||
      fail "$tag: the intercommunicator was not reported as native"
  done
  ;;

aliases)
  baseline
  # <scatter> <gather> <canonical scatter> <canonical gather>
  for combination in "lin ls linear linear_sync" "bnom bnom binomial binomial" "bsbn lin bsbn linear"; do
    read -r scatter gather scatter_name gather_name <<<"$combination"
    tag="alias-s$scatter-g$gather"
    run "$tag" "$collectives" "${collectives_args[@]}" -- "LD_PRELOAD=$shim" PATCOLL_VERBOSE=1 \
        PATCOLL_SCATTER=$scatter PATCOLL_GATHER=$gather
    passed "$tag" $?
    same_digests "$tag" base
    grep -q "is not a .* algorithm" "$work/$tag.err" && { fail "$tag: an alias was reported unknown"; grep "is not a" "$work/$tag.err"; }
    for pair in "Scatter $scatter $scatter_name" "Gather $gather $gather_name"; do
      read -r coll given canonical <<<"$pair"
      grep -qE "MPI_$coll on MPI_COMM_WORLD \($np ranks\): $canonical, because PATCOLL_${coll^^}=$given" "$work/$tag.err" ||
        { fail "$tag: MPI_$coll was not served by $canonical for $given"; grep "MPI_$coll" "$work/$tag.err" | head -3; }
    done
  done
  ;;

nonblocking)
  nonblocking="$bindir/patcoll-preload-nonblocking"
  run nb-base "$nonblocking" --; passed nb-base $?
  for combination in "ring binomial binomial linear bruck ring ring pairwise" \
                     "auto clairvoyant linear binomial clairvoyant bruck clairvoyant recursive_halving"; do
    read -r allreduce reduce scatter gather allgather allgatherv rsblock rscatter <<<"$combination"
    tag="nb-$allreduce-$reduce"
    run "$tag" "$nonblocking" --shim -- "LD_PRELOAD=$shim" PATCOLL_VERBOSE=1 PATCOLL_ALLREDUCE=$allreduce \
        PATCOLL_REDUCE=$reduce PATCOLL_SCATTER=$scatter PATCOLL_GATHER=$gather PATCOLL_ALLGATHER=$allgather \
        PATCOLL_ALLGATHERV=$allgatherv PATCOLL_REDUCE_SCATTER_BLOCK=$rsblock PATCOLL_REDUCE_SCATTER=$rscatter
    passed "$tag" $?
    for pair in "Allreduce $allreduce" "Reduce $reduce" "Scatter $scatter" "Gather $gather" \
                "Allgather $allgather" "Allgatherv $allgatherv" "Reduce_scatter_block $rsblock" "Reduce_scatter $rscatter"; do
      read -r coll name <<<"$pair"
      served=$name; [ "$name" = auto ] && served="[a-z_0-9]+"
      grep -qE "MPI_I${coll,,} on MPI_COMM_WORLD \($np ranks\): ($served), because PATCOLL_${coll^^}=$name" "$work/$tag.err" ||
        { fail "$tag: MPI_I${coll,,} was not served by patcoll"; head -5 "$work/$tag.err"; }
      if [ "$launcher" = hydra ] && [ "$coll" != Scatter ] && [ "$coll" != Gather ] && [ "$coll" != Allgather ] &&
         [ "$coll" != Allgatherv ] && [ "$coll" != Reduce_scatter_block ] && [ "$coll" != Reduce_scatter ]; then  # MPI-4: persistent
        grep -qE "MPI_${coll}_init on MPI_COMM_WORLD \($np ranks\): ($served), because" "$work/$tag.err" ||
          { fail "$tag: MPI_${coll}_init was not served by patcoll"; head -5 "$work/$tag.err"; }
      fi
    done
  done
  # A reactive algorithm serves blocking calls only: the shim declines the
  # non-blocking (and persistent) ones, the MPI library serves them and one
  # line says why.
  tag="nb-reactive"
  run "$tag" "$nonblocking" --shim -- "LD_PRELOAD=$shim" PATCOLL_VERBOSE=1 PATCOLL_ALLREDUCE=reactive \
      PATCOLL_REDUCE=reactive PATCOLL_BCAST=reactive
  passed "$tag" $?
  for coll in Allreduce Reduce Bcast; do
    grep -qE "MPI_I${coll,,} on MPI_COMM_WORLD \($np ranks\): native, because PATCOLL_${coll^^}=reactive.*blocking calls only" \
        "$work/$tag.err" || { fail "$tag: MPI_I${coll,,} with a reactive algorithm was not declined"; head -5 "$work/$tag.err"; }
  done
  ;;

threads)
  run threads "$bindir/patcoll-preload-threads" -- "LD_PRELOAD=$shim" PATCOLL_REDUCE=binomial \
      PATCOLL_ALLREDUCE=rabenseifner PATCOLL_SCATTER=binomial PATCOLL_GATHER=binomial PATCOLL_PATS=history
  rc=$?
  if [ $rc -eq 77 ] || grep -q '^SKIP' "$work/threads.out"; then cat "$work/threads.out"; exit 77; fi
  passed threads $rc
  ;;

history)
  bench="$bindir/patcoll-preload-bench"
  iterations=40
  [ "$launcher" = hydra ] && iterations=12
  run reduce "$bench" late reduce $iterations 0 2000 4096 -- "LD_PRELOAD=$shim" PATCOLL_REDUCE=clairvoyant \
      PATCOLL_PATS=history PATCOLL_HISTORY_PERIOD=4 PATCOLL_VERBOSE=2
  passed reduce $?
  grep -q 'patcoll: history on MPI_COMM_WORLD' "$work/reduce.err" ||
    { fail "no history statistics line"; cat "$work/reduce.err"; }
  # the late rank (the last) learned late by at least most of its 2000 us
  # (a loaded machine oversleeps: the sites case checks the upper side)
  late=$(sed -n 's/.*reduce at [^;]*calls): \([-0-9 .]*\) us.*/\1/p' "$work/reduce.err" | awk '{print $NF}')
  if [ -z "$late" ] || [ "$late" -lt 1500 ]; then
    fail "history learned the late rank at '${late}' us, not about 2000"; cat "$work/reduce.err"
  fi
  run allreduce "$bench" late allreduce $iterations 0 2000 4096 -- "LD_PRELOAD=$shim" PATCOLL_ALLREDUCE=slt \
      PATCOLL_PATS=history PATCOLL_HISTORY_PERIOD=1 PATCOLL_HISTORY_WINDOW=1
  passed allreduce $?
  ;;

sites)
  # <tag>: one late allreduce site (from 80 % of the 20 ms asked to 120 % of
  # what the late rank really slept), two sites where the late rank is not
  # late (by less than a quarter of the delay; other ranks the loaded
  # machine wakes late are not the point here)
  check_sites() {
    local line slept
    line=$(grep 'patcoll: history on MPI_COMM_WORLD' "$work/$1.err" | head -1)
    slept=$(sed -n 's/^slept-us //p' "$work/$1.err" | head -1)
    if [ -z "$line" ]; then fail "$1: no history statistics line"; cat "$work/$1.err"; return; fi
    echo "${line#*last PATs: }" | tr ';' '\n' | awk -v np="$np" -v high="$(( ${slept:-20000} * 12 / 10 + 1000 ))" '
      { split($0, f, "calls\\): "); split(f[2], v, " "); max = 0; at = -1
        for (i = 1; i <= np; ++i) if (v[i] + 0 > max) { max = v[i] + 0; at = i - 1 }
        if ($1 == "allreduce" && at == np - 1 && max >= 16000 && max <= high) ++late
        else if (v[np] + 0 < 5000) { ++balanced; if ($1 == "reduce") reduce = 1 }
        else { print "unexpected site: " $0; ++bad } }
      END { exit !(late == 1 && balanced == 2 && reduce && !bad) }' ||
      { fail "$1: the history did not learn one late allreduce site and two balanced ones (slept ${slept} us)"
        echo "$line"; }
  }
  history=(PATCOLL_PATS=history PATCOLL_VERBOSE=2 PATCOLL_HISTORY_PERIOD=8 PATCOLL_HISTORY_WINDOW=16)
  run sites-shim "$bindir/patcoll-preload-sites" 48 20 -- "LD_PRELOAD=$shim" "${history[@]}"
  passed sites-shim $?
  check_sites sites-shim
  run sites-api "$bindir/patcoll-preload-sites-api" 48 20 -- "${history[@]}"
  passed sites-api $?
  check_sites sites-api
  counter="$(dirname "$shim")/libpatcoll-pmpi-count.so"
  for n in 8 40; do
    run "count-$n" "$bindir/patcoll-preload-sites" $n 0 -- "LD_PRELOAD=$counter:$shim" PATCOLL_PATS=history \
        PATCOLL_HISTORY_PERIOD=2 PATCOLL_ALLREDUCE=ring PATCOLL_REDUCE=binomial
    passed "count-$n" $?
  done
  if [ "$(grep pmpi-collectives "$work/count-8.err" | sort)" != "$(grep pmpi-collectives "$work/count-40.err" | sort)" ] ||
     [ -z "$(grep pmpi-collectives "$work/count-8.err")" ]; then
    fail "the blocking collectives of patcoll's own grow with the number of calls"
    grep pmpi-collectives "$work/count-8.err" "$work/count-40.err" | head -4
  fi
  ;;

fortran)
  for binding in mpif usempi f08; do
    program="$bindir/patcoll-preload-fortran-$binding"
    [ -x "$program" ] || { fail "$program was not built"; continue; }
    run "f-$binding-base" "$program" --; passed "f-$binding-base" $?
    for combination in "binomial ring binomial binomial scatter_allgather ring bruck pairwise ring pairwise" \
                       "clairvoyant prr sbn sbn clairvoyant recursive_doubling clairvoyant clairvoyant recursive_halving clairvoyant"; do
      read -r reduce allreduce scatter gather bcast allgather allgatherv alltoall rsblock rscatter <<<"$combination"
      tag="f-$binding-$reduce"
      run "$tag" "$program" -- "LD_PRELOAD=$shim" PATCOLL_VERBOSE=1 PATCOLL_REDUCE=$reduce \
          PATCOLL_ALLREDUCE=$allreduce PATCOLL_SCATTER=$scatter PATCOLL_GATHER=$gather PATCOLL_BCAST=$bcast \
          PATCOLL_ALLGATHER=$allgather PATCOLL_ALLGATHERV=$allgatherv PATCOLL_ALLTOALL=$alltoall \
          PATCOLL_REDUCE_SCATTER_BLOCK=$rsblock PATCOLL_REDUCE_SCATTER=$rscatter
      passed "$tag" $?
      grep -qE ' [1-9][0-9]* failed' "$work/$tag.out" && fail "$tag: a call returned an error on some rank"
      if [ "$(digests "$tag" | sort)" != "$(digests "f-$binding-base" | sort)" ] || [ -z "$(digests "$tag")" ]; then
        fail "$tag: results differ from the run without the shim"
        diff <(digests "f-$binding-base" | sort) <(digests "$tag" | sort) | head -5
      fi
      for pair in "Reduce $reduce" "Allreduce $allreduce" "Scatter $scatter" "Gather $gather" "Bcast $bcast" \
                  "Allgather $allgather" "Allgatherv $allgatherv" "Alltoall $alltoall" \
                  "Reduce_scatter_block $rsblock" "Reduce_scatter $rscatter"; do
        read -r coll name <<<"$pair"
        functions="MPI_$coll"  # fortran.F90 calls these collectives non-blocking too
        case $coll in Reduce|Allreduce|Scatter|Gather|Allgather|Allgatherv|Reduce_scatter_block) functions+=" MPI_I${coll,,}" ;; esac
        for function in $functions; do
          grep -qE "$function on MPI_COMM_WORLD \($np ranks\): $name, because" "$work/$tag.err" ||
            { fail "$tag: $function was not served by $name (not intercepted?)"; grep "$function" "$work/$tag.err" | head -3; }
        done
      done
    done
  done
  ;;

python)
  # An mpi4py program under the shim (/usr/bin/python3, Debian's
  # python3-mpi4py): results exact, and the collectives served by patcoll.
  program=(/usr/bin/python3 "$(dirname "$0")/mpi4py_allreduce.py")
  if ! /usr/bin/python3 -c 'import mpi4py.MPI' >/dev/null 2>&1; then echo "SKIP: no mpi4py for /usr/bin/python3"; exit 77; fi
  run py-base "${program[@]}" --
  [ "$(grep -o ' 0 failed' "$work/py-base.out" | wc -l)" -eq "$np" ] || fail "py-base: $(cat "$work/py-base.out" "$work/py-base.err" | head -5)"
  for combination in "ring binomial" "auto auto"; do
    read -r allreduce reduce <<<"$combination"
    tag="py-$allreduce"
    run "$tag" "${program[@]}" -- "LD_PRELOAD=$shim" PATCOLL_VERBOSE=1 PATCOLL_ALLREDUCE=$allreduce PATCOLL_REDUCE=$reduce
    rc=$?
    [ $rc -eq 0 ] || fail "$tag: exit $rc"
    [ "$(grep -o ' 0 failed' "$work/$tag.out" | wc -l)" -eq "$np" ] ||
      { fail "$tag: wrong results or missing ranks"; cat "$work/$tag.out"; head -5 "$work/$tag.err"; }
    # auto names what it chose, because PATCOLL_<COLL>=auto
    grep -qE "MPI_Allreduce on MPI_COMM_WORLD \($np ranks\): [a-z_0-9]+, because PATCOLL_ALLREDUCE=$allreduce" "$work/$tag.err" ||
      { fail "$tag: MPI_Allreduce was not served by the shim"; head -5 "$work/$tag.err"; }
    grep -qE "MPI_Reduce on MPI_COMM_WORLD \($np ranks\): [a-z_0-9]+, because PATCOLL_REDUCE=$reduce" "$work/$tag.err" ||
      { fail "$tag: MPI_Reduce was not served by the shim"; head -5 "$work/$tag.err"; }
  done
  ;;

*) echo "unknown case $case_name"; exit 2 ;;
esac

[ $failures -eq 0 ] && echo "preload $case_name: all passed" && exit 0
echo "preload $case_name: $failures failure(s)"
exit 1
