#!/usr/bin/env bash
# Runs patcoll-bench (or patcoll-calibrate) under SimGrid SMPI on a simulated
# cluster (docs/results/smpi.md). Builds the SMPI variant into build-smpi/ when
# needed: the same sources, compiled with smpicc/smpicxx (-DPATCOLL_SMPI=ON),
# only the two programs.
#
#   scripts/smpi.sh --list
#   scripts/smpi.sh --platform tryton48 -np 48 [options] [-- patcoll-bench args]
#
# Options:
#   --platform NAME|FILE  smpi/platforms/NAME.xml, or any SimGrid platform file
#   -np P                 ranks (hosts are used in order, wrapping around)
#   --selector ompi|mpich|default
#                         whose decision logic `native` follows (SMPI's model of
#                         Open MPI's by default)
#   --calibrate           run patcoll-calibrate instead of patcoll-bench
#   --shared-malloc BYTES buffers and executor scratch of at least BYTES share
#                         one physical copy across ranks (SMPI shared malloc;
#                         the data is garbage, so the bench's result check is
#                         switched off: --no-check is added)
#   --compute             also time the ranks' computation (SMPI benchmarks
#                         CPU bursts with the real clock: NOT deterministic);
#                         default: communication only, computation free
#   --host-speed SPEED    with --compute: the speed of this machine's core in
#                         flop/s (SimGrid's smpi/host-speed, which turns the
#                         measured CPU time into simulated flops; e.g. 2.5e9);
#                         default: measured here with a multiply-add loop
#   --cfg KEY:VALUE       any further SimGrid option (repeatable)
#   --build-dir DIR       build-smpi/ by default
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
platform=""
procs=""
selector=ompi
program=patcoll-bench
shared_malloc=""
compute=0
host_speed=""
build_dir="$root/build-smpi"
extra_cfg=()

die() { echo "smpi.sh: $*" >&2; exit 2; }

list_platforms() {
  for f in "$root"/smpi/platforms/*.xml; do
    name=$(basename "$f" .xml)
    # The first line of the comment block says what the platform models.
    summary=$(sed -n 's/^ *MODELS: *//p' "$f" | head -1)
    printf '%-14s %s\n' "$name" "$summary"
  done
}

while [ $# -gt 0 ]; do
  case "$1" in
    --list) list_platforms; exit 0 ;;
    --platform) [ $# -ge 2 ] || die "--platform needs a name"; platform="$2"; shift 2 ;;
    -np|--np) [ $# -ge 2 ] || die "-np needs a number"; procs="$2"; shift 2 ;;
    --selector) [ $# -ge 2 ] || die "--selector needs ompi|mpich|default"; selector="$2"; shift 2 ;;
    --calibrate) program=patcoll-calibrate; shift ;;
    --shared-malloc) [ $# -ge 2 ] || die "--shared-malloc needs a size in bytes"; shared_malloc="$2"; shift 2 ;;
    --compute) compute=1; shift ;;
    --host-speed) [ $# -ge 2 ] || die "--host-speed needs flop/s"; host_speed="$2"; shift 2 ;;
    --cfg) [ $# -ge 2 ] || die "--cfg needs KEY:VALUE"; extra_cfg+=("--cfg=$2"); shift 2 ;;
    --build-dir) [ $# -ge 2 ] || die "--build-dir needs a directory"; build_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[ -n "$platform" ] || die "--platform NAME is required (--list shows them)"
[ -n "$procs" ] || die "-np P is required"
[[ "$procs" =~ ^[1-9][0-9]*$ ]] || die "-np must be a positive integer, not '$procs'"
case "$selector" in ompi|mpich|default) ;; *) die "--selector must be ompi, mpich or default" ;; esac
if [ -f "$platform" ]; then
  platform_file="$platform"
elif [ -f "$root/smpi/platforms/$platform.xml" ]; then
  platform_file="$root/smpi/platforms/$platform.xml"
else
  die "unknown platform '$platform' (--list shows them)"
fi
command -v smpicxx >/dev/null && command -v smpirun >/dev/null ||
  die "SimGrid SMPI is not installed (apt-get install libsimgrid-dev; scripts/bootstrap.sh does it)"

# Build (a no-op when up to date). Progress to stderr: stdout is the table.
if [ ! -f "$build_dir/build.ninja" ]; then
  echo "smpi.sh: configuring the SMPI variant in $build_dir" >&2
  CC=smpicc CXX=smpicxx cmake -S "$root" -B "$build_dir" -G Ninja -DPATCOLL_SMPI=ON \
    -DMPI_C_COMPILER=smpicc -DMPI_CXX_COMPILER=smpicxx >/dev/null
fi
cmake --build "$build_dir" -j "$(nproc)" --target patcoll-bench patcoll-calibrate | grep -v '^\[' >&2 || true
[ -x "$build_dir/bin/$program" ] || die "build failed: $build_dir/bin/$program missing"

# smpi/test: SMPI charges 100 us of simulated time per MPI_Test* call by
# default (a guard against busy loops); the executor tests once per step, so
# that default adds 100 us per step. 100 ns is what a real MPI_Testsome costs.
cfg=(--cfg=smpi/coll-selector:"$selector" --cfg=smpi/test:1e-7 --log=root.thresh:warning)
# This core's flop/s, from a dependent multiply-add loop (one flop pair
# per iteration), compiled and timed here.
measure_host_speed() {
  local dir
  dir=$(mktemp -d)
  cat >"$dir/speed.c" <<'C'
#include <stdio.h>
#include <time.h>
int main(void) {
  volatile double seed = 1.0000001;
  double x = seed, y = 0.9999999;
  const long n = 200000000;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; ++i) x = x * y + 1e-9;
  clock_gettime(CLOCK_MONOTONIC, &b);
  const double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  printf("%.3g\n", x > 0 ? 2.0 * (double)n / s : 0.0);
  return 0;
}
C
  cc -O1 -o "$dir/speed" "$dir/speed.c" && "$dir/speed"
  rm -rf "$dir"
}

host_speed_text=""
if [ "$compute" -eq 0 ]; then
  cfg+=(--cfg=smpi/simulate-computation:no)
  [ -z "$host_speed" ] || die "--host-speed applies to --compute only"
else
  cfg+=(--cfg=smpi/simulate-computation:yes)
  if [ -n "$host_speed" ]; then
    host_speed_text="host speed $host_speed flop/s (given)"
  else
    host_speed=$(measure_host_speed) || die "could not measure the host speed; give --host-speed"
    host_speed_text="host speed $host_speed flop/s (measured on this machine)"
  fi
  [[ "$host_speed" =~ ^[0-9.]+([eE][0-9]+)?[kKMGT]?f?$ ]] || die "--host-speed must be flop/s (e.g. 2.5e9), not '$host_speed'"
  cfg+=(--cfg=smpi/host-speed:"$host_speed")
fi
if [ -n "$shared_malloc" ]; then
  cfg+=(--cfg=smpi/auto-shared-malloc-thresh:"$shared_malloc")
fi

selector_text="SimGrid SMPI's model of Open MPI's decision logic (smpi/coll-selector:ompi)"
[ "$selector" = mpich ] && selector_text="SimGrid SMPI's model of MPICH's decision logic (smpi/coll-selector:mpich)"
[ "$selector" = default ] && selector_text="SimGrid SMPI's default collectives (smpi/coll-selector:default)"
compute_text="communication only (computation, e.g. combining, costs nothing)"
[ "$compute" -eq 1 ] && compute_text="computation benchmarked on this machine (not deterministic), $host_speed_text"
echo "SMPI $(smpirun --version 2>/dev/null | head -1 | sed 's/SimGrid version //'); platform $(basename "$platform_file" .xml), $procs ranks; $compute_text"
[ "$program" = patcoll-bench ] && echo "native = $selector_text"
if [ -n "$shared_malloc" ]; then
  echo "shared malloc: buffers and executor scratch >= $shared_malloc bytes share one physical copy across ranks; their contents are garbage"
  # Shared data is garbage, so the bench must not compare results.
  if [ "$program" = patcoll-bench ] && [[ " $* " != *" --no-check "* ]]; then
    set -- "$@" --no-check
    echo "shared malloc: result check off (--no-check added)"
  fi
fi

exec smpirun -np "$procs" -platform "$platform_file" "${cfg[@]}" "${extra_cfg[@]}" \
  "$build_dir/bin/$program" "$@"
