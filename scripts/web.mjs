#!/usr/bin/env node
// `pnpm web`: the api (from its source, restarted on changes) and the internal web app's dev server, side by side.
// The api runs from the repository root, so it uses the same DATA_DIR (./.data), database and development key as
// `pnpm start` and `pnpm dev`; the app's proxy reads that key. Each child gets a process group of its own, so a
// Ctrl-C reaches it once, from here (a terminal's SIGINT goes to the whole foreground group, and the api reads a
// second signal as "exit now"); this script then waits for both and exits 0.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensurePrismaClient } from './ensure-prisma-client.mjs';

ensurePrismaClient();
const root = path.resolve(import.meta.dirname, '..');
// Read here, in a script turbo never runs (so not in turbo.json): the same variables the api and the app read.
const { DATA_DIR, PORT, PETSTORE_API_ORIGIN, PETSTORE_DEV_KEY_FILE } = process.env;
const dataDir = path.resolve(root, DATA_DIR || '.data');
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PETSTORE_API_ORIGIN: PETSTORE_API_ORIGIN || `http://127.0.0.1:${PORT || 3000}`,
  PETSTORE_DEV_KEY_FILE: PETSTORE_DEV_KEY_FILE || path.join(dataDir, 'dev-api-key'),
};
const web = path.join(root, 'examples/internal-web');
const children = [
  spawn(
    process.execPath,
    ['--conditions=@petstore/source', '--watch', '--import', 'tsx', 'apps/api/src/main.ts'],
    { cwd: root, env, stdio: 'inherit', detached: true },
  ),
  spawn(process.execPath, [path.join(web, 'node_modules/vite/bin/vite.js')], {
    cwd: web,
    env,
    stdio: 'inherit',
    detached: true,
  }),
];

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGINT');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
const codes = await Promise.all(
  children.map(
    (child) =>
      new Promise((resolve) =>
        child.once('exit', (code) => {
          // One of them ending on its own (a crash, a port in use) ends the other too.
          stop();
          resolve(code);
        }),
      ),
  ),
);
process.exit(stopping && codes.every((code) => code === 0 || code === null) ? 0 : 1);
