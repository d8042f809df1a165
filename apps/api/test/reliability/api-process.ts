/**
 * The real API (`src/main.ts`, as `pnpm dev` runs it) in a child process of its own, so a scenario can
 * SIGKILL or SIGTERM it, sample its memory and run several instances side by side. No vitest import: the
 * report script uses this too.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { killProcess, spawnOwned } from '../support/run-registry.js';

const API_DIR = join(import.meta.dirname, '..', '..');

/** The key every reliability scenario configures through API_KEYS. */
export const RELIABILITY_API_KEY = 'reliability-key-0123456789abcdef';

export interface ApiProcessOptions {
  /** PostgreSQL URL; unset runs on embedded PGlite in `dataDir`. */
  databaseUrl?: string;
  /** Where PGlite keeps its files (and the development key, unused here since API_KEYS is set). */
  dataDir: string;
  /** Extra environment variables (LOG_LEVEL, rate limits, ...). */
  env?: Record<string, string>;
  /** How long start-up (migrations included) may take; 60 s times PETSTORE_TEST_TIME_SCALE by default. */
  startTimeoutMs?: number;
}

export interface ApiProcess {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** `127.0.0.1` and the port, for raw sockets. */
  host: string;
  port: number;
  /** Resident set size of the process in bytes, from /proc (Linux). */
  rss(): Promise<number>;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGKILL if still running; resolves once it is gone. */
  kill(): Promise<void>;
}

export async function startApiProcess(options: ApiProcessOptions): Promise<ApiProcess> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    DATA_DIR: options.dataDir,
    API_KEYS: RELIABILITY_API_KEY,
    ...options.env,
  };
  if (options.databaseUrl !== undefined) env.DATABASE_URL = options.databaseUrl;
  // Killed with this process whatever happens to it (see spawnOwned), and below if it does not start.
  const child = spawnOwned(
    process.execPath,
    ['--conditions=@petstore/source', '--import', 'tsx', 'src/main.ts'],
    { cwd: API_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const append = (chunk: Buffer) => {
    // Keep the tail only: a fuzz run may log a lot at warn level.
    output = (output + chunk.toString()).slice(-64 * 1024);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  const startTimeoutMs = options.startTimeoutMs ?? scaled(60_000);
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`api did not start within ${startTimeoutMs} ms:\n${output}`));
    }, startTimeoutMs);
    const check = () => {
      const url = /listening on (http:\/\/\S+\/v1)/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(url);
      }
    };
    child.stdout?.on('data', check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`api exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  let baseUrl: string;
  try {
    baseUrl = await listening;
  } catch (error) {
    await killProcess(child);
    throw error;
  }
  const url = new URL(baseUrl);
  const pid = child.pid as number;

  return {
    child,
    pid,
    baseUrl,
    host: url.hostname,
    port: Number(url.port),
    async rss() {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
      if (kib === undefined) throw new Error(`no VmRSS for pid ${pid}`);
      return Number(kib) * 1024;
    },
    exited,
    output: () => output,
    kill: () => killProcess(child),
  };
}

/**
 * Starts several at once; if one fails, those that did start are killed before the error is thrown, so the
 * caller only ever holds all of them or none.
 */
export async function startApiProcesses(
  starts: readonly (() => Promise<ApiProcess>)[],
): Promise<ApiProcess[]> {
  const settled = await Promise.allSettled(starts.map((start) => start()));
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(started.map((api) => api.kill()));
    throw failure.reason;
  }
  return started;
}
