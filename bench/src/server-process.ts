// The servers under test run as child processes, each on its own port on 127.0.0.1, so their memory and CPU
// are their own and the load generator never shares their event loop.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface ServerProcess {
  label: string;
  baseUrl: string;
  pid: number;
  /** Milliseconds from spawn to the first 200 answer to an authorized `GET /v1/pets`. */
  startupMs: number;
  /** Resets the kernel's peak-RSS mark (VmHWM), so the next reading covers only what follows; false if not allowed. */
  resetPeakRss(): boolean;
  /** Current and peak resident set size in bytes, from /proc/<pid>/status. */
  readRss(): { rss: number; peak: number };
  /** CPU time the process has used so far (user + system, all threads), in microseconds, from /proc/<pid>/stat. */
  readCpuMicros(): number;
  stop(): Promise<void>;
}

export interface ServerSpec {
  label: string;
  /** node arguments: flags, then the script. */
  args: string[];
  env: Record<string, string>;
  /** Any authorized GET that answers 200 once the server is ready. */
  readyPath: string;
  apiKey: string;
}

/** A free TCP port on 127.0.0.1 (taken from the kernel, then released for the child to bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The servers die with the bench, however it ends: killed when it exits or is interrupted (SIGINT/SIGTERM/SIGHUP),
 * and on Linux started under `setpriv --pdeathsig KILL` (it execs node: same pid, about a millisecond more at
 * spawn), so the kernel kills them when the bench is killed outright. A failed or interrupted run leaves no
 * server holding a port or a database.
 */
const liveChildren = new Set<ChildProcess>();
let safetyNetInstalled = false;

function killLiveChildren(): void {
  for (const child of liveChildren) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function installSafetyNet(): void {
  if (safetyNetInstalled) return;
  safetyNetInstalled = true;
  process.on('exit', killLiveChildren);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      process.removeListener(signal, onSignal);
      killLiveChildren();
      // Then die of the signal, as without this handler, unless someone else handles it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

const SETPRIV = (() => {
  if (process.platform !== 'linux') return undefined;
  const probe = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? 'setpriv' : undefined;
})();

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux almost everywhere). */
const CLOCK_TICKS_PER_SEC = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime (fields 14 and 15), read after the `(comm)` field, which may contain spaces. */
function readCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks / CLOCK_TICKS_PER_SEC) * 1e6;
}

function readStatusKb(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

async function waitReady(
  child: ChildProcess,
  url: string,
  apiKey: string,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}:\n${stderr()}`);
    try {
      const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` } });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    // Often, so that the start-up time is measured to ~10 ms; a refused connection costs next to nothing.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`server did not answer ${url} within 60 s:\n${stderr()}`);
}

export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const port = await freePort();
  const spawnedAt = performance.now();
  // stdout (the api's request log) goes to /dev/null: the api still formats and writes every line, as in
  // production, but no reader competes for the two cores. stderr is kept for error reports.
  installSafetyNet();
  const [file, args] = SETPRIV
    ? [SETPRIV, ['--pdeathsig', 'KILL', '--', process.execPath, ...spec.args]]
    : [process.execPath, spec.args];
  const child = spawn(file, args, {
    env: { ...spec.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  let stderrText = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrText = (stderrText + chunk.toString()).slice(-8_000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(child, `${baseUrl}${spec.readyPath}`, spec.apiKey, () => stderrText);
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    throw error;
  }
  const startupMs = performance.now() - spawnedAt;
  const pid = child.pid as number;
  return {
    label: spec.label,
    baseUrl,
    pid,
    startupMs,
    resetPeakRss() {
      // "5" clears the peak RSS mark (Documentation/filesystems/proc.rst); allowed for our own child.
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    },
    readRss() {
      return { rss: readStatusKb(pid, 'VmRSS'), peak: readStatusKb(pid, 'VmHWM') };
    },
    readCpuMicros() {
      try {
        return readCpuMicros(pid);
      } catch (error) {
        // The process is gone: say which server, how it ended and what it last wrote, not just ENOENT.
        const ended = child.exitCode ?? child.signalCode ?? 'unknown';
        throw new Error(`${spec.label} server (pid ${pid}) is gone (exit: ${ended}):\n${stderrText}`, {
          cause: error,
        });
      }
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}

/** Samples RSS every `intervalMs` while a load runs; the peak is the larger of the samples and VmHWM. */
export function sampleRss(server: ServerProcess, intervalMs = 100) {
  // Without a reset, VmHWM would include start-up (migrations), so only the samples count then.
  const hwmUsable = server.resetPeakRss();
  const samples: { t: number; rss: number }[] = [];
  const started = Date.now();
  let max = 0;
  const take = () => {
    try {
      const { rss } = server.readRss();
      samples.push({ t: Date.now() - started, rss });
      if (rss > max) max = rss;
    } catch {
      // the process is gone; the caller finds out from the load generator
    }
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      let peak = max;
      try {
        if (hwmUsable) peak = Math.max(max, server.readRss().peak);
      } catch {
        // keep the sampled maximum
      }
      return { peak, samples };
    },
  };
}
