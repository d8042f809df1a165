#!/usr/bin/env bash
# Makes sure PgBouncer is available for the tests behind a transaction-mode pooler
# (apps/api/test/reliability/pgbouncer.test.ts, `pnpm reliability`, `pnpm scale-test`). Debian's package (1.18 on
# Debian 12: the version without prepared-statement tracking, which is the point); nothing is downloaded from
# elsewhere. The tests start their own PgBouncer from an ini file in a temp directory, on a 127.0.0.1 port.
# Run before anything starts (by .ci/run, and by the test code when pgbouncer is not found).
set -euo pipefail
if [ -n "${PGBOUNCER_PATH:-}" ] && [ -x "$PGBOUNCER_PATH" ]; then exit 0; fi
if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then exit 0; fi
bash "$(dirname "$0")/ensure-apt-package.sh" PgBouncer pgbouncer PGBOUNCER_PATH
# The package starts a system service on install where there is an init; the tests run their own instances.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet pgbouncer 2>/dev/null; then
  systemctl stop pgbouncer || true
fi
