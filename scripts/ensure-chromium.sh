#!/usr/bin/env bash
# Makes sure a headless Chromium is available for apps/api/test/docs.test.ts (the /docs page test).
# Playwright's own browser download does not work on these machines; Debian's package does.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Chromium is missing: install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH" >&2
  exit 1
fi
echo "[ci] installing Chromium for the /docs browser test"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
