#!/usr/bin/env bash
# check_layers.sh — the arrows of src/ point down (src/README.md).
#
# Every file under src/ belongs to the layer of its first folder (src/domains/<system>/
# files all to "domains"). Every #include "…" of a project header names that header's
# layer (#include "store/codec.h"), and may name only the layers listed for the
# including file's own layer below. Fails, listing each offence, on:
#   - an include of a layer not allowed from the file's layer (an arrow pointing up,
#     or sideways between the two doors);
#   - an include that names no layer or a header that does not exist;
#   - a file outside the known layers;
#   - a cycle between modules (a .c file with its header; foo_internal.h belongs to
#     foo), within a layer too: the arrows between modules point one way.
# Usage: scripts/check_layers.sh [SRC_DIR]   (default: src, from the repository root)
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.."
SRC=${1:-src}

# layer: the layers its files may include (itself included). Lowest first.
declare -A ALLOWED=(
  [core]="core"
  [store]="core store"
  [redis]="core store redis"
  [http]="core store http"
  [domains]="core store http domains"
  [app]="core store redis http domains app"
)

fail=0
nfiles=0
nincludes=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
while IFS= read -r -d '' f; do
  rel=${f#"$SRC"/}
  layer=${rel%%/*}
  nfiles=$((nfiles + 1))
  if [[ $rel != */* || -z ${ALLOWED[$layer]+x} ]]; then
    echo "$f: not in a layer folder (core store redis http domains app)"
    fail=1
    continue
  fi
  lineno=0
  while IFS= read -r line; do
    lineno=$((lineno + 1))
    [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]] || continue
    inc=${BASH_REMATCH[1]}
    nincludes=$((nincludes + 1))
    to=${inc%%/*}
    if [[ $inc != */* || -z ${ALLOWED[$to]+x} ]]; then
      echo "$f:$lineno: #include \"$inc\" names no layer (write \"<layer>/…\")"
      fail=1
      continue
    fi
    if [[ ! -f $SRC/$inc ]]; then
      echo "$f:$lineno: #include \"$inc\": no such header under $SRC/"
      fail=1
      continue
    fi
    if [[ " ${ALLOWED[$layer]} " != *" $to "* ]]; then
      echo "$f:$lineno: #include \"$inc\": layer '$layer' may include only: ${ALLOWED[$layer]}"
      fail=1
    fi
    printf '%s %s\n' "$rel" "$inc" >>"$edges"
  done <"$f"
done < <(find "$SRC" -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z)

# module cycles: depth-first search over the module graph
cycle=$(awk '
  function module(p) { sub(/\.[ch]$/, "", p); sub(/_internal$/, "", p); return p }
  function visit(u,    i, v) {
    state[u] = 1; path[++depth] = u
    for (i = 1; i <= nout[u]; i++) {
      v = out[u, i]
      if (state[v] == 1) { # back to a module on the path: the cycle is the path from v
        for (k = depth; path[k] != v; k--) {}
        s = v; for (j = k + 1; j <= depth; j++) s = s " -> " path[j]
        print s " -> " v; exit 0
      }
      if (!state[v]) visit(v)
    }
    depth--; state[u] = 2
  }
  { a = module($1); b = module($2); if (a != b && !seen[a, b]++) { out[a, ++nout[a]] = b; mods[a]; mods[b] } }
  END { for (m in mods) if (!state[m]) visit(m) }' "$edges" | head -n 1)
if [[ -n $cycle ]]; then
  echo "check_layers: modules include each other in a cycle: $cycle"
  fail=1
fi

if ((nfiles == 0)); then
  echo "check_layers: no source files under $SRC/"
  exit 1
fi
if ((fail)); then
  echo "check_layers: FAILED (the layers and what each may include: src/README.md)"
  exit 1
fi
echo "check_layers: $nfiles files, $nincludes project includes, every arrow points down, no module cycle"
