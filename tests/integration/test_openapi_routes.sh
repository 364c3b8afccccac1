#!/usr/bin/env bash
# docs/openapi.yaml describes exactly the routes of the code: every
# "METHOD /pattern" printed by `bitmapd --routes` is in the document as that
# path with that (lower-case) method, and the document has no path or method
# the code lacks. The document is read line by line (no YAML library needed):
# under the top-level `paths:` key, path keys are indented by two spaces and
# their operations (get, post, …) by four.
set -u
# shellcheck source=tests/integration/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

SPEC=$BITMAPD_ROOT/docs/openapi.yaml

check "docs/openapi.yaml exists" yes "$([[ -f $SPEC ]] && echo yes || echo no)"
[[ -f $SPEC ]] || finish

routes_out=$BITMAPD_TEST_TMP/routes.txt
rc=0
"$BITMAPD_BIN" --routes >"$routes_out" 2>"$BITMAPD_TEST_TMP/routes.err" || rc=$?
check "bitmapd --routes exits 0" 0 "$rc"
check_match "bitmapd --routes prints at least one route" '^[A-Z]+ /' "$(head -n 1 "$routes_out")"

# "METHOD /path" per operation in the document, one per line; duplicate path
# keys or operations are reported as "DUPLICATE ...".
spec_ops=$BITMAPD_TEST_TMP/spec_ops.txt
python3 - "$SPEC" >"$spec_ops" <<'PY'
import re, sys

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
in_paths = False
path = None
seen_paths, seen_ops = set(), set()
with open(sys.argv[1], encoding="utf-8") as f:
    for raw in f:
        line = raw.rstrip("\n").rstrip()
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        if indent == 0:
            in_paths = re.match(r"^paths\s*:\s*$", line) is not None
            path = None
            continue
        if not in_paths:
            continue
        if indent == 2:
            m = re.match(r"""^(['"]?)(/[^'"]*)\1\s*:\s*$""", stripped)
            path = m.group(2) if m else None
            if path is None:
                print("NOT A PATH KEY " + stripped)
            elif path in seen_paths:
                print("DUPLICATE PATH " + path)
            else:
                seen_paths.add(path)
            continue
        if indent == 4 and path is not None:
            m = re.match(r"^([A-Za-z]+)\s*:", stripped)
            if m and m.group(1).lower() in METHODS:
                op = m.group(1).upper() + " " + path
                if m.group(1) != m.group(1).lower():
                    print("NOT LOWER-CASE " + op)
                if op in seen_ops:
                    print("DUPLICATE " + op)
                seen_ops.add(op)
                print(op)
PY
check "docs/openapi.yaml has a paths section with operations" yes \
  "$(grep -qE '^[A-Z]+ /' "$spec_ops" && echo yes || echo no)"
check "docs/openapi.yaml has no duplicate, non-path or upper-case keys under paths" "" \
  "$(grep -E '^(DUPLICATE|NOT )' "$spec_ops" | tr '\n' ';')"
check_match "docs/openapi.yaml declares OpenAPI 3.0" '^openapi: *"?3\.0\.[0-9]+"?$' \
  "$(grep -m1 -E '^openapi:' "$SPEC")"

# Every route of the code is documented (one check per route).
while read -r method pattern; do
  [[ -n ${method:-} ]] || continue
  check "openapi.yaml documents $method $pattern" yes \
    "$(grep -qxF "$method $pattern" "$spec_ops" && echo yes || echo no)"
done <"$routes_out"

# Nothing is documented that the code lacks (path, or method of a path).
extra=$(grep -E '^[A-Z]+ /' "$spec_ops" | grep -vxF -f "$routes_out" | tr '\n' ';' || true)
check "openapi.yaml has no operation the code lacks" "" "$extra"
extra_paths=$(grep -E '^[A-Z]+ /' "$spec_ops" | cut -d' ' -f2 | sort -u |
  grep -vxF -f <(cut -d' ' -f2 "$routes_out" | sort -u) | tr '\n' ';' || true)
check "openapi.yaml has no path the code lacks" "" "$extra_paths"

# Where the validator is installed, the document must also be valid OpenAPI.
if python3 -c 'import yaml, openapi_spec_validator' 2>/dev/null; then
  verdict=$(python3 - "$SPEC" 2>&1 <<'PY'
import sys, yaml
from openapi_spec_validator import validate
try:
    with open(sys.argv[1], encoding="utf-8") as f:
        validate(yaml.safe_load(f))
    print("valid")
except Exception as e:  # report the validator's message
    print(str(e).splitlines()[0] if str(e) else type(e).__name__)
PY
  )
  check "docs/openapi.yaml is a valid OpenAPI document" valid "$verdict"
else
  echo "# openapi_spec_validator not installed: schema validation skipped"
fi

finish
