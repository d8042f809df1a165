// `pnpm web` as a newcomer runs it (issue 39): the command of the root package.json, in a process group of its
// own, then Ctrl-C as a terminal sends it (SIGINT to the whole group).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import { findFreePort } from './support/postgres-server.js';
import { exitOf, makeTempDir, removeTempDir, spawnOwned } from './support/run-registry.js';

vi.setConfig({ testTimeout: timeouts.process });

const root = join(import.meta.dirname, '../../..');
const command = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { web: string } })
  .scripts.web;

let dataDir: string;
beforeAll(async () => {
  dataDir = await makeTempDir('petstore-web-');
});
afterAll(async () => {
  await removeTempDir(dataDir);
});

/** Resolves with the first match of `pattern` in what `read()` returns, polling until `deadline`. */
async function waitFor(read: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + scaled(120_000);
  for (;;) {
    const found = pattern.exec(read());
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('pnpm web', () => {
  it('serves the app on the data directory and key of pnpm start; Ctrl-C stops both quietly', async () => {
    const port = await findFreePort();
    // `node scripts/web.mjs`: run as pnpm runs it, without the shell in between (a shell killed by the SIGINT
    // would hide the script's own exit code).
    const [program, ...args] = command.split(' ');
    expect(program).toBe('node');
    const child = spawnOwned(process.execPath, args, {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
        DATA_DIR: dataDir,
        PORT: String(port),
        NO_COLOR: '1',
      },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    // 'close': exited, and its output (and its children's, which share the pipes) read to the end.
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const interrupt = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
      } catch {
        // The group is gone already.
      }
    };
    try {
      await waitFor(() => output, /listening on http/).catch((error: unknown) => {
        throw child.exitCode === null ? error : new Error(`pnpm web exited (${child.exitCode}):\n${output}`);
      });
      const app = (await waitFor(() => output, /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/))[1] as string;
      // The api wrote its key where pnpm start keeps it, and the app's proxy sends that key.
      const key = (await readFile(join(dataDir, 'dev-api-key'), 'utf8')).trim();
      expect(output).toContain(join(dataDir, 'pglite'));
      const direct = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(direct.status).toBe(200);
      const proxied = await fetch(`${app}v1/pets`);
      expect(proxied.status, await proxied.text()).toBe(200);

      const before = output.length;
      interrupt();
      expect(await exited).toBe(0);
      // What the issue saw after Ctrl-C: the api's "second signal: exiting now", turbo's "1 successful, 3 total".
      expect(output.slice(before)).not.toMatch(/second signal|successful|failed|ELIFECYCLE/i);
    } finally {
      if (child.exitCode === null) interrupt();
      await exitOf(child);
    }
  });
});
