#!/usr/bin/env bash
# Installs a built tree into a fresh prefix and uses it from outside:
#   the layout (man pages included), the soname, the exports (PAT_* only, nm -D), then the
#   program consumer/hello.c built with find_package(patcoll) and with
#   pkg-config + the MPI wrapper, each run under mpirun on 3 ranks.
# usage: run.sh BUILD_DIR WORK_DIR MPICC MPIEXEC [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 work=$2 mpicc=$3 mpiexec=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "install-consumer: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

library=$(find "$prefix" -name 'libpatcoll.so' | head -n 1)
[ -n "$library" ] || fail "no libpatcoll.so under $prefix"
libdir=$(dirname "$library")
for f in include/patcoll.h bin/patcoll-bench bin/patcoll-sim bin/patcoll-sched bin/patcoll-report share/doc/patcoll/README.md \
         share/man/man1/patcoll-sim.1 share/man/man1/patcoll-report.1 share/man/man3/patcoll.3 \
         share/man/man3/PAT_Reduce.3 share/man/man3/PAT_Ireduce.3; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
# The installed pages are found by name, link pages (.so) included.
if command -v man >/dev/null; then
  for page in patcoll-sim PAT_Ireduce; do
    MANWIDTH=80 man -M "$prefix/share/man" "$page" 2>&1 | grep -q "^NAME" || fail "man -M $prefix/share/man $page shows no page"
  done
fi
for f in libpatcoll-preload.so cmake/patcoll/patcollConfig.cmake cmake/patcoll/patcollConfigVersion.cmake pkgconfig/patcoll.pc; do
  [ -e "$libdir/$f" ] || fail "missing $libdir/$f"
done

soname=$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[[ "$soname" =~ ^libpatcoll\.so\.[0-9]+$ ]] || fail "soname '$soname' is not libpatcoll.so.<major>"
[ -e "$libdir/$soname" ] || fail "$soname is not installed"

# Defined dynamic symbols other than PAT_* (the version script and
# -fvisibility=hidden keep core and the MPI layer out).
others=$(nm -D --defined-only "$library" | awk '{print $NF}' | grep -v '^PAT_' || true)
[ -z "$others" ] || fail "libpatcoll.so exports more than PAT_*: $(echo $others | head -c 400)"
exported=$(nm -D --defined-only "$library" | grep -c ' PAT_' || true)
[ "$exported" -gt 10 ] || fail "only $exported PAT_* symbols exported"

# 1. find_package(patcoll) from another CMake project.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here/consumer" -B "$work/cmake-build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
      -DMPI_C_COMPILER="$mpicc" >/dev/null || fail "find_package(patcoll) configure failed"
cmake --build "$work/cmake-build" >/dev/null || fail "find_package(patcoll) build failed"
"$mpiexec" "$@" -np 3 "$work/cmake-build/hello" | tee "$work/cmake.out"
grep -q "patcoll consumer: ok on 3 ranks" "$work/cmake.out" || fail "the find_package build did not run correctly"

# 2. pkg-config with the MPI wrapper compiler.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs patcoll) || fail "pkg-config does not know patcoll"
[ "$(pkg-config --modversion patcoll)" = "$(sed -n 's/^project(patcoll VERSION \([0-9.]*\).*/\1/p' "$here/../../CMakeLists.txt")" ] ||
  fail "pkg-config version differs from the project version"
# shellcheck disable=SC2086
"$mpicc" -std=c99 -Wall -o "$work/hello-pc" "$here/consumer/hello.c" $flags -Wl,-rpath,"$libdir" ||
  fail "the pkg-config build failed"
"$mpiexec" "$@" -np 3 "$work/hello-pc" | tee "$work/pc.out"
grep -q "patcoll consumer: ok on 3 ranks" "$work/pc.out" || fail "the pkg-config build did not run correctly"
echo "install-consumer: ok (find_package and pkg-config, $exported PAT_* exports, soname $soname)"
