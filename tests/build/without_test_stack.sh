#!/usr/bin/env bash
# Configures and builds patcoll in a scratch directory with
# -DPATCOLL_BUILD_TESTS=OFF while GoogleTest, Google Benchmark and Boost are
# hidden from find_package: the build a cluster user without the test stack
# gets. Builds the library, the shim and the tools (at -O0: the test checks
# that they build, not how fast they run) and checks that they are there and
# that the Boost-only generator says what serves it.
# usage: without_test_stack.sh SOURCE_DIR WORK_DIR GENERATOR MPICC MPICXX MPIEXEC
set -euo pipefail
source=$1 work=$2 generator=$3 mpicc=$4 mpicxx=$5 mpiexec=$6
fail() { echo "build-without-tests: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
cmake -S "$source" -B "$work" -G "$generator" -DCMAKE_BUILD_TYPE=None \
  -DPATCOLL_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON \
  -DMPI_C_COMPILER="$mpicc" -DMPI_CXX_COMPILER="$mpicxx" -DMPIEXEC_EXECUTABLE="$mpiexec" \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; fail "configure failed"; }
grep -q "Boost.Heap not found" "$work/configure.log" || fail "no message about the generator that needs Boost"

tools=(patcoll-bench patcoll-sim patcoll-sched patcoll-calibrate patcoll-info)
# Tools added later (patcoll-report, ...) are built too when the build has them.
for t in $(cmake --build "$work" --target help | sed -n 's/^\([a-z0-9_-]*\): .*/\1/p;s/^\.\.\. \(patcoll-[a-z]*\).*/\1/p' | grep -x 'patcoll-report' || true); do
  tools+=("$t")
done
cmake --build "$work" -j 2 --target patcoll patcoll-preload "${tools[@]}" >"$work/build.log" 2>&1 ||
  { tail -n 40 "$work/build.log" >&2; fail "build failed"; }

for f in lib/libpatcoll.so lib/libpatcoll-preload.so; do
  [ -e "$work/$f" ] || fail "missing $f"
done
for t in "${tools[@]}"; do
  [ -x "$work/bin/$t" ] || fail "missing bin/$t"
done
! grep -qi 'gtest\|benchmark::' "$work/build.ninja" 2>/dev/null || fail "the build still references GoogleTest or Google Benchmark"
out=$("$work/bin/patcoll-sched" clairvoyant --generator pairing --procs 4 --segments 2) ||
  fail "patcoll-sched --generator pairing failed without Boost"
grep -q "needs Boost" <<<"$out" || fail "patcoll-sched --generator pairing does not say it needs Boost: $out"
echo "build-without-tests: library, shim and ${#tools[@]} tools built without GoogleTest, Google Benchmark and Boost"
