#!/usr/bin/env bash
# Makes sure HAProxy is available for the scale-out test behind a load balancer
# (apps/api/test/reliability/load-balancer.test.ts, `pnpm scale-test`). Debian's package; nothing is downloaded
# from elsewhere. The test starts its own HAProxy from a config file in a temp directory, on 127.0.0.1 ports.
set -euo pipefail
if [ -n "${HAPROXY_PATH:-}" ] && [ -x "$HAPROXY_PATH" ]; then exit 0; fi
if command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "HAProxy is missing: install it (Debian: apt-get install -y haproxy) or set HAPROXY_PATH" >&2
  exit 1
fi
echo "[ci] installing HAProxy for the load-balancer scale-out test"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
# The package starts a system service on install where there is an init; the test runs its own instances.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet haproxy 2>/dev/null; then
  systemctl stop haproxy || true
fi
