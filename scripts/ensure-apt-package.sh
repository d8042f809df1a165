#!/usr/bin/env bash
# Installs a Debian package for a test's system tool, for scripts/ensure-haproxy.sh and ensure-chromium.sh:
#   ensure-apt-package.sh <tool name> <package> <override variable>
# Waits (bounded) for another apt-get or dpkg that holds the lock instead of failing; on any failure prints one
# message saying what is missing and the command that installs it, and exits 1. Nothing but Debian's package.
set -euo pipefail
tool=$1 package=$2 variable=$3
LOCK_WAIT_SECONDS=${APT_LOCK_WAIT_SECONDS:-120}

fail() {
  echo "$tool is missing and $1. Install it with \`sudo apt-get update && sudo apt-get install -y $package\`" \
    "(Debian/Ubuntu), or set $variable to its binary." >&2
  exit 1
}

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  fail "cannot be installed from here (that needs root and apt-get)"
fi

# dpkg's lock: apt-get waits for it itself. The package lists' lock (apt-get update): apt 2.6 does not wait for
# that one, so retry while another apt-get holds it, up to the same bound.
apt_get() {
  local deadline=$((SECONDS + LOCK_WAIT_SECONDS)) output status
  while :; do
    status=0
    output=$(DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT_SECONDS" -qq "$@" 2>&1) ||
      status=$?
    if [ "$status" -eq 0 ]; then return 0; fi
    if grep -q 'Could not get lock' <<<"$output" && [ "$SECONDS" -lt "$deadline" ]; then
      echo "[ensure] another apt-get holds the lock; waiting (up to ${LOCK_WAIT_SECONDS} s)" >&2
      sleep 5
      continue
    fi
    echo "$output" | tail -n 5 >&2
    return "$status"
  done
}

echo "[ensure] installing $tool (Debian package $package)"
apt_get update || fail "\`apt-get update\` failed (above)"
apt_get install -y "$package" || fail "\`apt-get install $package\` failed (above)"
