#!/usr/bin/env bash
# Installs the Debian packages bitmapd needs to build, run, test and benchmark.
# Fast no-op when everything is present: apt-get update only runs when
# something is actually missing. Needs root (or sudo) only in that case.
#
# Usage: scripts/deps.sh [bench]
#   bench  also the packages only `make bench` needs (gnuplot for its chart);
#          `make test` and `make run` never ask for them.
set -euo pipefail

PACKAGES=(
  build-essential pkg-config
  libpq-dev libevent-dev libroaring-dev libjansson-dev libinih-dev libcmocka-dev
  libhiredis-dev libjemalloc-dev redis-server
  postgresql-15 postgresql-client-15 postgresql-15-pgtap
  curl wrk redis-tools jq python3 python3-redis ca-certificates
  procps util-linux iproute2 coreutils
  clang libclang-rt-14-dev valgrind
)
case ${1:-} in
  "") ;;
  bench) PACKAGES+=(gnuplot-nox) ;;
  *)
    echo "usage: $0 [bench]" >&2
    exit 2
    ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ $status != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

# Node.js and npm, for the Node client test (tests/integration/test_client_node.sh):
# the machine's own when it has them (its Node.js may come with its own npm, which
# Debian's npm package would conflict with), else Debian's.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "deps: installing ${#missing[@]} missing package(s): ${missing[*]}"

install_cmd=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}")
if ((EUID == 0)); then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "deps: not root and sudo is not available; run as root:" >&2
  echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

"${sudo[@]}" apt-get update -qq
"${sudo[@]}" "${install_cmd[@]}"

# Installing postgresql-15 may create and start Debian's default cluster 15/main
# on port 5432. bitmapd never uses it (scripts/pg.sh runs a private cluster), and
# we leave it alone rather than stopping something the administrator may want.
echo "deps: done"
