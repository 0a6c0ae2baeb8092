#!/usr/bin/env bash
# System packages the test suite needs beyond Python: Debian's Chromium for the browser tests
# (Playwright drives it; its own browser download cannot work offline), CJK fonts so
# screenshots of Chinese pages are legible, and redis-server (the test session starts its own on a
# free loopback port as the Celery broker and the shared cache). Installs only what is missing; needs root for apt-get.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ -d /usr/share/fonts/opentype/noto ] || missing+=(fonts-noto-cjk)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "missing system packages: ${missing[*]} (install them with apt-get as root; browser tests need chromium, the ingest tests redis-server)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
