/**
 * Everything a test run (vitest, `pnpm reliability`, `pnpm scale-test`) starts, so that it is stopped on every
 * path and so that the end of the run can prove it was:
 *
 * - Processes are started with `spawnOwned`: recorded before the first await, killed when this process exits
 *   or is interrupted (SIGINT/SIGTERM/SIGHUP), and on Linux started under `setpriv --pdeathsig KILL`, so that the
 *   kernel kills them when their parent dies, however it dies (SIGKILL of a vitest worker, an OOM kill).
 *   `stopProcess` is SIGTERM, then SIGKILL after a bound.
 * - Temp dirs made with `makeTempDir` and databases created by ./test-database.ts carry the run id, and cleanups
 *   registered with `onCleanup` run on an interrupt too.
 * - Each is written down in a directory of its run (`<tmp>/petstore-test-runs/<run id>/`) while it exists;
 *   `checkRunLeftovers` (the vitest global teardown) kills and removes whatever is still there, and fails.
 *
 * The run id comes from PETSTORE_TEST_RUN_ID, which the first module to load sets for the processes it starts
 * (vitest's workers inherit it from the global setup), so a run's leftovers are told apart from those of other
 * runs on the same machine and PostgreSQL server. No vitest import: the CLIs use this too.
 */
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../../../../tooling/vitest.shared.js';

const RUN_ID_VARIABLE = 'PETSTORE_TEST_RUN_ID';

function readRunId(): string {
  const inherited = process.env[RUN_ID_VARIABLE];
  if (inherited !== undefined && /^[0-9a-f]{8}$/.test(inherited)) return inherited;
  const created = randomBytes(4).toString('hex');
  process.env[RUN_ID_VARIABLE] = created;
  return created;
}

/** 8 hex characters naming this run; part of every database name and temp dir name it makes. */
export const RUN_ID = readRunId();

const RUNS_DIR = join(tmpdir(), 'petstore-test-runs');
export const RUN_DIR = join(RUNS_DIR, RUN_ID);

function record(name: string, content: string): void {
  mkdirSync(RUN_DIR, { recursive: true });
  writeFileSync(join(RUN_DIR, name), content);
}

function forget(name: string): void {
  try {
    unlinkSync(join(RUN_DIR, name));
  } catch {
    // already gone
  }
}

// ---------------------------------------------------------------------------------------------------------
// Cleanups and the interrupt handler

type Cleanup = () => Promise<void> | void;
const cleanups = new Set<Cleanup>();
const liveChildren = new Set<ChildProcess>();
let safetyNetInstalled = false;

/** Runs `cleanup` on an interrupt (SIGINT/SIGTERM/SIGHUP) unless the returned function removes it first. */
export function onCleanup(cleanup: Cleanup): () => void {
  installSafetyNet();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

function killAllChildren(): void {
  for (const child of liveChildren) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function installSafetyNet(): void {
  if (safetyNetInstalled) return;
  safetyNetInstalled = true;
  // Exit listeners must be synchronous: what is still running is killed, nothing is awaited.
  process.on('exit', killAllChildren);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      process.removeListener(signal, onSignal);
      killAllChildren();
      const bound = new Promise<void>((resolve) => setTimeout(resolve, scaled(10_000)).unref());
      const all = Promise.allSettled([...cleanups].map(async (cleanup) => cleanup()));
      void Promise.race([all, bound]).finally(() => {
        // Then die of the signal as if we had not caught it, unless someone else (vitest) handles it.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    };
    process.on(signal, onSignal);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Processes

/** `setpriv` when it can set the parent-death signal (util-linux on Linux); undefined elsewhere. */
const SETPRIV: string | undefined = (() => {
  if (process.platform !== 'linux') return undefined;
  const probe = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? 'setpriv' : undefined;
})();

/**
 * `spawn`, for a process this run owns: recorded at once, killed on every path (see the module comment). The
 * pid is the command's own (setpriv execs it). `describe` names it in the leftover report.
 */
export function spawnOwned(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  installSafetyNet();
  const [file, argv] = SETPRIV
    ? [SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args]]
    : [command, [...args]];
  const child = spawn(file, argv, options);
  liveChildren.add(child);
  const pid = child.pid;
  if (pid !== undefined) record(`pid-${pid}`, [command, ...args].join(' ').slice(0, 500));
  const gone = () => {
    liveChildren.delete(child);
    if (pid !== undefined) forget(`pid-${pid}`);
  };
  child.once('exit', gone);
  child.once('error', gone);
  return child;
}

/** Resolves once `child` has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it is gone. */
export async function stopProcess(child: ChildProcess, graceMs = scaled(10_000)): Promise<void> {
  const exited = exitOf(child);
  if (child.exitCode !== null || child.signalCode !== null) return exited;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** SIGKILL; resolves once it is gone. */
export async function killProcess(child: ChildProcess): Promise<void> {
  const exited = exitOf(child);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
}

// ---------------------------------------------------------------------------------------------------------
// Temp dirs

const dirRecord = (dir: string) => `dir-${Buffer.from(dir).toString('base64url')}`;

/** mkdtemp in the system temp dir, named `<prefix><run id>-<random>`, removed on an interrupt at the latest. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}${RUN_ID}-`));
  record(dirRecord(dir), dir);
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  forget(dirRecord(dir));
}

/** A temp dir for `use`, removed afterwards whatever happens (and on an interrupt). */
export async function withTempDir<T>(prefix: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await makeTempDir(prefix);
  const unregister = onCleanup(() => removeTempDir(dir));
  try {
    return await use(dir);
  } finally {
    unregister();
    await removeTempDir(dir);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The check at the end of the run

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped by its parent) holds nothing.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}

export interface RunLeftovers {
  processes: string[];
  tempDirs: string[];
  databases: string[];
}

/**
 * What this run started and is still there: processes still running (after `graceMs` for those the kernel is
 * killing with their parent) and temp dirs still on disk. Kills and removes them, and forgets the run.
 * Databases are the caller's (./test-database.ts knows the server).
 */
export async function sweepRunLeftovers(graceMs = scaled(5_000)): Promise<Omit<RunLeftovers, 'databases'>> {
  const entries = existsSync(RUN_DIR) ? readdirSync(RUN_DIR) : [];
  const read = (name: string) => {
    try {
      return readFileSync(join(RUN_DIR, name), 'utf8');
    } catch {
      return '';
    }
  };
  const pids = entries.filter((name) => name.startsWith('pid-')).map((name) => Number(name.slice(4)));
  for (let waited = 0; waited < graceMs && pids.some(isRunning); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const processes: string[] = [];
  for (const pid of pids) {
    if (!isRunning(pid)) continue;
    processes.push(`pid ${pid}: ${read(`pid-${pid}`)}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  const tempDirs: string[] = [];
  for (const name of entries.filter((entry) => entry.startsWith('dir-'))) {
    const dir = read(name);
    if (dir === '' || !existsSync(dir)) continue;
    tempDirs.push(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  rmSync(RUN_DIR, { recursive: true, force: true });
  return { processes, tempDirs };
}

/** The error the end of the run fails with, or undefined when nothing was left. */
export function leftoverError(leftovers: RunLeftovers): Error | undefined {
  const lines = [
    ...leftovers.processes.map((line) => `  process ${line}`),
    ...leftovers.databases.map((name) => `  database ${name}`),
    ...leftovers.tempDirs.map((dir) => `  temp dir ${dir}`),
  ];
  if (lines.length === 0) return undefined;
  return new Error(
    `run ${RUN_ID} left these behind (now killed/dropped/removed); whatever started them must stop them on every path:\n${lines.join('\n')}`,
  );
}
