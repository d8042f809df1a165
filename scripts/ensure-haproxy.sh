#!/usr/bin/env bash
# Makes sure HAProxy is available for the scale-out test behind a load balancer
# (apps/api/test/reliability/load-balancer.test.ts, `pnpm scale-test`). Debian's package; nothing is downloaded
# from elsewhere. The test starts its own HAProxy from a config file in a temp directory, on 127.0.0.1 ports.
# Run before anything starts (by .ci/run, and by the test code when haproxy is not found).
set -euo pipefail
if [ -n "${HAPROXY_PATH:-}" ] && [ -x "$HAPROXY_PATH" ]; then exit 0; fi
if command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; then exit 0; fi
bash "$(dirname "$0")/ensure-apt-package.sh" HAProxy haproxy HAPROXY_PATH
# The package starts a system service on install where there is an init; the test runs its own instances.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet haproxy 2>/dev/null; then
  systemctl stop haproxy || true
fi
