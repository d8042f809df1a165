#!/usr/bin/env bash
# Makes sure a headless Chromium is available for the browser tests (apps/api/test/docs.test.ts,
# apps/api/test/clients/browser.test.ts). Playwright's own browser download does not work on these machines;
# Debian's package does. Run before anything starts (by .ci/run, and by the test code when it is not found).
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then exit 0; fi
bash "$(dirname "$0")/ensure-apt-package.sh" Chromium chromium CHROMIUM_PATH
