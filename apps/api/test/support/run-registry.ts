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

const RUNS_DIR = join(tmpdir(), 'petstore-test-runs');

/** When the process started (clock ticks since boot, /proc/<pid>/stat field 22): a pid with another is reused. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function readRunId(): string {
  const inherited = process.env[RUN_ID_VARIABLE];
  if (inherited !== undefined && /^[0-9a-f]{8}$/.test(inherited)) return inherited;
  const created = randomBytes(4).toString('hex');
  process.env[RUN_ID_VARIABLE] = created;
  // The process that owns the run: once it is gone, the next run sweeps what this one left (sweepAbandonedRuns).
  mkdirSync(join(RUNS_DIR, created), { recursive: true });
  writeFileSync(join(RUNS_DIR, created, 'owner'), `${process.pid} ${startTimeOf(process.pid) ?? ''}`);
  return created;
}

/** 8 hex characters naming this run; part of every database name and temp dir name it makes. */
export const RUN_ID = readRunId();
export const RUN_DIR = join(RUNS_DIR, RUN_ID);

/**
 * A directory of this run's own for a cache that lives as long as the run (named `cache-<name>`): removed with the
 * run directory when the run ends (or by the next run's sweep, if this one was killed), never left behind.
 */
export function runCacheDir(name: string): string {
  return join(RUN_DIR, `cache-${name}`);
}

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

/** As the owner ends: its run directory goes too, if nothing but the owner's note is left in it. */
function forgetRunIfClean(): void {
  try {
    if (
      !existsSync(RUN_DIR) ||
      readFileSync(join(RUN_DIR, 'owner'), 'utf8').split(' ')[0] !== String(process.pid)
    ) {
      return;
    }
    if (readdirSync(RUN_DIR).every((name) => name === 'owner' || name.startsWith('cache-')))
      rmSync(RUN_DIR, { recursive: true, force: true });
  } catch {
    // the next run's sweep removes it
  }
}

/**
 * Kills this process's children when it exits or is interrupted, and runs the cleanups on an interrupt. Called by
 * everything here that starts something; the run's owner (vitest's global setup, a CLI) calls it too, so that
 * its run directory goes when it ends.
 */
function installSafetyNet(): void {
  if (safetyNetInstalled) return;
  safetyNetInstalled = true;
  // Exit listeners must be synchronous: what is still running is killed, nothing is awaited.
  process.on('exit', () => {
    killAllChildren();
    forgetRunIfClean();
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      process.removeListener(signal, onSignal);
      killAllChildren();
      // At once, synchronously: a vitest worker may be SIGKILLed a moment after the signal.
      for (const dir of tempDirCleanups.keys()) {
        try {
          rmSync(dir, { recursive: true, force: true });
          forget(dirRecord(dir));
        } catch {
          // the end-of-run check or the next run removes it
        }
      }
      const bound = new Promise<void>((resolve) => setTimeout(resolve, scaled(10_000)).unref());
      const all = Promise.allSettled([...cleanups].map(async (cleanup) => cleanup()));
      void Promise.race([all, bound]).finally(() => {
        forgetRunIfClean();
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
  // First line: its start time, so that a later check never mistakes another process with a reused pid for it.
  if (pid !== undefined) {
    record(`pid-${pid}`, `${startTimeOf(pid) ?? ''}\n${[command, ...args].join(' ').slice(0, 500)}`);
  }
  const gone = () => {
    liveChildren.delete(child);
    if (pid !== undefined) forget(`pid-${pid}`);
  };
  child.once('exit', gone);
  child.once('error', gone);
  return child;
}

/**
 * A process this run caused to start without being its parent (a PostgreSQL server that `pg_ctl` daemonized):
 * recorded so that the end-of-run check kills it if it is still there. The returned function forgets it (call it
 * once the process has been stopped, or before recording its successor after a restart).
 */
export function recordProcess(pid: number, description: string): () => void {
  installSafetyNet();
  record(`pid-${pid}`, `${startTimeOf(pid) ?? ''}\n${description.slice(0, 500)}`);
  return () => forget(`pid-${pid}`);
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

const tempDirCleanups = new Map<string, () => void>();

/**
 * mkdtemp in the system temp dir, named `<prefix><run id>-<random>`: removed by `removeTempDir`, on an interrupt
 * (SIGINT/SIGTERM/SIGHUP), or by the end-of-run check, whichever comes first.
 */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}${RUN_ID}-`));
  record(dirRecord(dir), dir);
  tempDirCleanups.set(
    dir,
    onCleanup(() => removeTempDir(dir)),
  );
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  forget(dirRecord(dir));
  tempDirCleanups.get(dir)?.();
  tempDirCleanups.delete(dir);
}

/** A temp dir for `use`, removed afterwards whatever happens. */
export async function withTempDir<T>(prefix: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await makeTempDir(prefix);
  try {
    return await use(dir);
  } finally {
    await removeTempDir(dir);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The check at the end of the run

function isRunning(pid: number, startTime?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (startTime && process.platform === 'linux' && startTimeOf(pid) !== startTime) return false;
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
export function sweepRunLeftovers(graceMs = scaled(5_000)): Promise<Omit<RunLeftovers, 'databases'>> {
  return sweepRunDir(RUN_DIR, graceMs);
}

async function sweepRunDir(runDir: string, graceMs: number): Promise<Omit<RunLeftovers, 'databases'>> {
  const entries = existsSync(runDir) ? readdirSync(runDir) : [];
  const read = (name: string) => {
    try {
      return readFileSync(join(runDir, name), 'utf8');
    } catch {
      return '';
    }
  };
  const pids = entries
    .filter((name) => name.startsWith('pid-'))
    .map((name) => {
      const [startTime = '', description = ''] = read(name).split('\n');
      return { pid: Number(name.slice(4)), startTime, description };
    });
  const running = () => pids.filter(({ pid, startTime }) => isRunning(pid, startTime));
  for (let waited = 0; waited < graceMs && running().length > 0; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const processes: string[] = [];
  for (const { pid, description } of running()) {
    processes.push(`pid ${pid}: ${description}`);
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
  rmSync(runDir, { recursive: true, force: true });
  return { processes, tempDirs };
}

/**
 * Runs whose owner is gone without cleaning up (it was SIGKILLed, or the machine stopped): their processes are
 * killed, temp dirs removed and databases dropped (through `dropDatabases`, given the run id), and each is
 * forgotten. Called as a run starts; runs whose owner is alive (others' parallel runs) are left alone.
 */
export async function sweepAbandonedRuns(
  dropDatabases: (runId: string) => Promise<string[]>,
): Promise<RunLeftovers & { runs: string[] }> {
  const swept: RunLeftovers & { runs: string[] } = { runs: [], processes: [], tempDirs: [], databases: [] };
  const runs = existsSync(RUNS_DIR) ? readdirSync(RUNS_DIR) : [];
  for (const runId of runs) {
    if (runId === RUN_ID || !/^[0-9a-f]{8}$/.test(runId)) continue;
    let owner = '';
    try {
      owner = readFileSync(join(RUNS_DIR, runId, 'owner'), 'utf8');
    } catch {
      continue; // not written yet, or another sweeper took it
    }
    const [pid = '', startTime] = owner.split(' ');
    if (isRunning(Number(pid), startTime)) continue;
    const { processes, tempDirs } = await sweepRunDir(join(RUNS_DIR, runId), 0);
    swept.runs.push(runId);
    swept.processes.push(...processes);
    swept.tempDirs.push(...tempDirs);
    swept.databases.push(...(await dropDatabases(runId)));
  }
  return swept;
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
