// Headless Chromium for the browser tests (the /docs page, the bundled client in a page of another origin).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/**
 * Chromium from the system (Debian's `chromium` package); `npx playwright install` cannot download here.
 * When it is missing, scripts/ensure-chromium.sh installs it where it can (root with apt-get), so the README's
 * test command works on a fresh machine; elsewhere the test fails with the command that fixes it: a skipped
 * browser test would hide a broken page.
 */
export function findChromium(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const present = () =>
    candidates.find((candidate) => candidate !== undefined && candidate !== '' && existsSync(candidate));
  if (present() === undefined && process.platform === 'linux') {
    spawnSync('bash', [join(import.meta.dirname, '../../../../scripts/ensure-chromium.sh')], {
      stdio: 'inherit',
    });
  }
  const found = present();
  if (found === undefined) {
    throw new Error(
      'Chromium is needed for the browser tests and was not found. Install it with ' +
        '`apt-get update && apt-get install -y chromium` (or `scripts/ensure-chromium.sh`), ' +
        'or point CHROMIUM_PATH at a Chromium binary.',
    );
  }
  return found;
}

/** A headless Chromium that reaches nothing on its own (no updates, sync or QUIC). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
