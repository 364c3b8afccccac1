#!/usr/bin/env bash
# arch_graph.sh — draws docs/architecture-includes.svg (the modules of src/ by layer,
# an arrow for each module that includes another's header) and
# docs/architecture-paths.svg (from docs/architecture-paths.dot, drawn by hand).
# Needs graphviz's dot (apt-get install graphviz); run it after moving a module or
# changing what a module includes, and commit the SVGs. `--dot` prints the include
# graph in the DOT language instead (no graphviz needed).
#
# A module is a .c file with its header (a header *_internal.h belongs to the module
# it is named after). Arrows into core/common.h, core/log.h, core/config.h,
# core/metrics.h and core/app.h are left out: almost every module has them.
set -euo pipefail
cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.."

dot_of_includes() {
  find src -type f \( -name '*.c' -o -name '*.h' \) | sort | while IFS= read -r f; do
    { grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$f" || true; } | sed 's/.*"\(.*\)"/\1/' |
      while IFS= read -r inc; do printf '%s %s\n' "${f#src/}" "$inc"; done
  done | awk '
    function module(p) { sub(/\.[ch]$/, "", p); sub(/_internal$/, "", p); return p }
    function layer(p) { split(p, a, "/"); return a[1] }
    BEGIN {
      skip["core/common"] = skip["core/log"] = skip["core/config"] = 1
      skip["core/metrics"] = skip["core/app"] = 1
      n = split("app domains http redis store core", order, " ")
      title["core"] = "core/"; title["store"] = "store/"; title["redis"] = "redis/ (a door)"
      title["http"] = "http/ (a door)"; title["domains"] = "domains/"; title["app"] = "app/"
    }
    {
      from = module($1); to = module($2)
      mods[from] = 1; mods[to] = 1
      if (from != to && !(to in skip)) edge[from " " to] = 1
    }
    END {
      print "digraph includes {"
      print "  rankdir=TB; newrank=true; compound=true; node [shape=box, fontname=\"Helvetica\", fontsize=10];"
      print "  edge [color=\"#55555588\", arrowsize=0.6];"
      for (i = 1; i <= n; i++) {
        l = order[i]
        printf "  subgraph \"cluster_%s\" { label=\"%s\"; fontname=\"Helvetica-Bold\"; style=rounded; color=\"#888888\";\n", l, title[l]
        for (m in mods) if (layer(m) == l) {
          name = m; sub(/^[^\/]*\//, "", name)
          printf "    \"%s\" [label=\"%s\"%s];\n", m, name, (m in skip) ? ", style=dashed" : ""
        }
        print "  }"
      }
      for (e in edge) { split(e, a, " "); printf "  \"%s\" -> \"%s\";\n", a[1], a[2] }
      print "}"
    }'
}

if [[ ${1:-} == --dot ]]; then
  dot_of_includes
  exit 0
fi
command -v dot >/dev/null || { echo "arch_graph: graphviz's dot is missing (apt-get install graphviz)" >&2; exit 1; }
dot_of_includes | dot -Tsvg -o docs/architecture-includes.svg
dot -Tsvg -o docs/architecture-paths.svg docs/architecture-paths.dot
echo "arch_graph: wrote docs/architecture-includes.svg and docs/architecture-paths.svg"
