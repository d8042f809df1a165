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
function findChromium(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const present = () =>
    candidates.find((candidate) => candidate !== undefined && candidate !== '' && existsSync(candidate));
  let scriptMessage: string | undefined;
  if (present() === undefined && process.platform === 'linux') {
    // Progress on stdout; when it cannot install, one message with the command on stderr.
    const script = spawnSync('bash', [join(import.meta.dirname, '../../../../scripts/ensure-chromium.sh')], {
      stdio: ['ignore', 'inherit', 'pipe'],
      encoding: 'utf8',
    });
    scriptMessage = script.stderr?.trim().split('\n').at(-1);
  }
  const found = present();
  if (found === undefined) {
    throw new Error(
      scriptMessage?.startsWith('Chromium is missing')
        ? `${scriptMessage} (needed by the browser tests)`
        : 'Chromium is needed for the browser tests and was not found. Install it with ' +
            '`sudo apt-get update && sudo apt-get install -y chromium`, or point CHROMIUM_PATH at a Chromium binary.',
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
