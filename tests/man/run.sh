#!/usr/bin/env bash
# The man pages (man/man1, man/man3): each one formats without a warning
#   (MANWIDTH=80 man --warnings -E UTF-8 -l, run from man/ so that the
#   `.so man3/X.3` link pages resolve as they do once installed); a page's
#   .TH names its file; every .so link points to a page whose NAME section
#   lists the link's name; every PAT_* function and type of include/patcoll.h
#   and every tool (tools/<name>/ building patcoll-<name>) has a page, and
#   every page of section 1 a tool; every patcoll page a SEE ALSO names exists.
#   With BIN_DIR: each built tool's page names every option its --help
#   names, and patcoll(3) every variable patcoll-info lists.
# usage: run.sh SOURCE_DIR [BIN_DIR]
set -uo pipefail
src=$1
bin=${2:-}
cd "$src/man" || { echo "man-pages: no $src/man" >&2; exit 1; }
command -v man >/dev/null || { echo "man-pages: 'man' not found (apt-get install man-db groff-base)" >&2; exit 1; }

failures=0
fail() { echo "man-pages: $*" >&2; failures=$((failures + 1)); }
err=$(mktemp)
trap 'rm -f "$err"' EXIT

pages=(man1/*.1 man3/*.3)
[ -e "${pages[0]}" ] || { echo "man-pages: no pages under $src/man" >&2; exit 1; }
for page in "${pages[@]}"; do
  if ! MANWIDTH=80 man --warnings -E UTF-8 -l "$page" >/dev/null 2>"$err"; then
    fail "$page: man failed: $(head -c 400 "$err")"
  elif [ -s "$err" ]; then
    fail "$page: warnings: $(head -c 400 "$err")"
  fi
  name=$(basename "$page"); section=${name##*.}; name=${name%.*}
  first=$(head -n 1 "$page")
  if [[ "$first" == .so\ * ]]; then
    target=${first#.so }
    if [ ! -f "$target" ]; then
      fail "$page: links to missing $target"
    elif head -n 1 "$target" | grep -q '^\.so '; then
      fail "$page: links to $target, itself a link"
    elif ! sed -n '/^\.SH NAME/,/^\.SH/p' "$target" | grep -qw -- "$name"; then
      fail "$page: $target's NAME section does not list $name"
    fi
  else
    upper=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
    grep -q "^\.TH $upper $section " "$page" || fail "$page: .TH does not say '$upper $section'"
    grep -q '^\.SH NAME' "$page" || fail "$page: no NAME section"
    # Cross-references to patcoll's own pages must resolve.
    for ref in $(grep -ho '^\.BR \(PAT_[A-Za-z_]*\|patcoll[-a-z]*\) ([13])' "$page" | sed 's/^\.BR \([^ ]*\) (\([13]\))/\1.\2/'); do
      [ -f "man${ref##*.}/$ref" ] || fail "$page: refers to ${ref%.*}(${ref##*.}), which has no page"
    done
  fi
done

# Every function (PAT_x followed by '(') and type (typedef ... PAT_x;) of the C API.
api=$(grep -oE '\bPAT_[A-Za-z_]+\(|typedef [^;]*\bPAT_[A-Za-z_]+;' "$src/include/patcoll.h" |
      grep -oE 'PAT_[A-Za-z_]+(\(|;)$' | tr -d '(;' | sort -u)
[ "$(echo "$api" | wc -w)" -gt 40 ] || fail "found only $(echo "$api" | wc -w) PAT_* names in include/patcoll.h"
for fn in $api; do
  [ -f "man3/$fn.3" ] || fail "$fn (include/patcoll.h) has no page man3/$fn.3"
done
[ -f man3/patcoll.3 ] || fail "no overview page man3/patcoll.3"

# Every tool: tools/<name>/ whose CMakeLists builds patcoll-<name>.
tools=()
for cml in "$src"/tools/*/CMakeLists.txt; do
  dir=$(basename "$(dirname "$cml")")
  grep -q "patcoll-$dir\b" "$cml" && tools+=("patcoll-$dir")
done
[ ${#tools[@]} -ge 6 ] || fail "found only ${#tools[@]} tools under tools/: ${tools[*]}"
for tool in "${tools[@]}"; do
  [ -f "man1/$tool.1" ] || fail "$tool has no page man1/$tool.1"
done
for page in man1/*.1; do
  tool=$(basename "$page" .1)
  [[ " ${tools[*]} " == *" $tool "* ]] || fail "$page documents no tool of tools/"
done

# The built tools against their pages: every option of --help (other
# tools' options it mentions, "patcoll-calibrate --out", left out), written
# \-\-name or \-\-name\-part in roff; every PATCOLL_* variable.
checked=()
if [ -n "$bin" ]; then
  for tool in "${tools[@]}"; do
    [ -x "$bin/$tool" ] && [ -f "man1/$tool.1" ] || continue
    help=$("$bin/$tool" --help 2>&1) || { fail "$tool --help failed"; continue; }
    for flag in $(printf '%s\n' "$help" | sed 's/patcoll-[a-z]* --[a-z-]*//g' | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
      rest=${flag#--}
      grep -qF -- "\\-\\-$rest" "man1/$tool.1" || grep -qF -- "\\-\\-${rest//-/\\-}" "man1/$tool.1" ||
        fail "man1/$tool.1 does not document $flag (in $tool --help)"
    done
    checked+=("$tool")
  done
  if [ -x "$bin/patcoll-info" ]; then
    environment=$(awk '/^\.SH /{on = ($0 ~ /^\.SH ENVIRONMENT/)} on' man3/patcoll.3)
    variables=$("$bin/patcoll-info" --parsable 2>/dev/null | sed -n 's/^variable:\(PATCOLL_[A-Z_]*\):.*/\1/p' | sort -u)
    [ -n "$variables" ] || fail "patcoll-info --parsable lists no variable"
    for v in $variables; do
      grep -qw -- "$v" <<<"$environment" || fail "man3/patcoll.3's ENVIRONMENT does not describe $v (patcoll-info)"
    done
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "man-pages: $failures problem(s)" >&2
  exit 1
fi
echo "man-pages: ok (${#pages[@]} pages, $(echo "$api" | wc -w) PAT_* names, ${#tools[@]} tools: ${tools[*]};" \
     "options checked against --help: ${checked[*]:-none})"
