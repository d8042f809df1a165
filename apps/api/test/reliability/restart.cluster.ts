/**
 * A PostgreSQL cluster of the restart scenario's own (initdb + pg_ctl in a temp directory, on a free port of
 * 127.0.0.1), so that it can be restarted, and its backends terminated, without touching the server every other
 * test shares. As root, initdb and the server run as the `postgres` user (PostgreSQL refuses root). No vitest
 * import: the report script uses this too.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../support/postgres-server.js';
import { makeTempDir, onCleanup, recordProcess, removeTempDir } from '../support/run-registry.js';

const run = promisify(execFile);

export interface OwnCluster {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` (trust auth, local only). */
  adminUrl: string;
  port: number;
  /** `pg_ctl restart -m fast`: every session is terminated (57P01), the server is back when this resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`, files kept: `start` brings it back (a replica catches up from its primary). */
  stopServer(): Promise<void>;
  /** Starts a server stopped by `stopServer`. */
  start(): Promise<void>;
  /** Stops the server at once (`-m immediate`) if it runs, and removes its files. Safe to call twice. */
  stop(): Promise<void>;
}

/** The server programs the clusters need. */
const TOOLS = ['initdb', 'pg_ctl', 'pg_basebackup'];

/** The directory of initdb, pg_ctl and pg_basebackup: on the PATH, else the newest /usr/lib/postgresql/<n>/bin. */
async function binDir(): Promise<string> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && TOOLS.every((tool) => existsSync(join(dir, tool)))) return dir;
  }
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest !== undefined) return join('/usr/lib/postgresql', newest, 'bin');
  throw new Error(`the scenarios on clusters of their own need PostgreSQL's ${TOOLS.join(', ')} on the PATH`);
}

/**
 * A cluster in a fresh temp dir whose data directory `create` fills (initdb, or pg_basebackup from another
 * cluster), then started. `onCreated` receives it before anything is created, so that a caller's `finally` can
 * stop whatever part of it exists, whichever step fails.
 */
async function startCluster(
  label: string,
  create: (dataDir: string, tool: ClusterTool) => Promise<unknown>,
  onCreated: (cluster: OwnCluster) => void,
  settings: readonly string[] = [],
): Promise<OwnCluster> {
  const bin = await binDir();
  const asRoot = process.getuid?.() === 0;
  // As root: initdb and postgres run as `postgres`, who must be able to create the data directory inside.
  const baseDir = await makeTempDir(`petstore-${label}-pg-`);
  await chmod(baseDir, 0o777);
  const dataDir = join(baseDir, 'data');
  const logFile = join(baseDir, 'server.log');
  const port = await findFreePort();
  const tool: ClusterTool = (name, args, timeout = 60_000) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args], { timeout })
      : run(join(bin, name), args, { timeout });
  const pgCtl = (args: string[]) => tool('pg_ctl', ['-D', dataDir, ...args]);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    // TCP only: no socket file in a shared directory.
    "-c unix_socket_directories=''",
    '-c fsync=off',
    '-c max_connections=100',
    ...settings.map((setting) => `-c ${setting}`),
  ].join(' ');

  let started = false;
  let stopped = false;
  // The postmaster is pg_ctl's child, not ours: recorded by pid (again after each restart), so that the end of
  // the run kills it if this process dies before `stop`, and stopped on an interrupt.
  let forgetServer = () => {};
  const recordServer = () => {
    forgetServer();
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0) forgetServer = recordProcess(pid, `postgres -D ${dataDir}`);
  };
  const cluster: OwnCluster = {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart() {
      await pgCtl(['-m', 'fast', '-w', '-t', '60', '-l', logFile, 'restart']);
      recordServer();
    },
    async stopServer() {
      await pgCtl(['-m', 'fast', '-w', '-t', '60', 'stop']);
      forgetServer();
    },
    async start() {
      started = true;
      await pgCtl(['-w', '-t', '60', '-l', logFile, '-o', options, 'start']);
      recordServer();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      forgetInterrupt();
      try {
        if (started || existsSync(join(dataDir, 'postmaster.pid'))) {
          await pgCtl(['-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
        }
      } finally {
        forgetServer();
        await removeTempDir(baseDir);
      }
    },
  };
  const forgetInterrupt = onCleanup(() => cluster.stop());
  onCreated(cluster);
  await create(dataDir, tool);
  await cluster.start();
  return cluster;
}

/** Runs a PostgreSQL program (as `postgres` when we are root). */
type ClusterTool = (name: string, args: string[], timeout?: number) => Promise<unknown>;

/** A new cluster (initdb), started. See startCluster for `onCreated`. */
export function startOwnCluster(onCreated: (cluster: OwnCluster) => void): Promise<OwnCluster> {
  return startCluster(
    'restart',
    (dataDir, tool) =>
      tool('initdb', [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '--no-sync',
        '--encoding=UTF8',
        '--locale=C',
      ]),
    onCreated,
  );
}

/**
 * A streaming replica of `primary` (`pg_basebackup -R`: a copy of its files plus the standby settings), started:
 * read-only, replaying the primary's WAL as it comes, each commit `applyDelayMs` late (recovery_min_apply_delay:
 * a replica that lags). See startCluster for `onCreated`.
 */
export function startReplicaOf(
  primary: OwnCluster,
  onCreated: (cluster: OwnCluster) => void,
  { applyDelayMs = 0 }: { applyDelayMs?: number } = {},
): Promise<OwnCluster> {
  return startCluster(
    'replica',
    (dataDir, tool) =>
      tool('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        dataDir,
        '-R',
        '-X',
        'stream',
        '--checkpoint=fast',
        '--no-sync',
      ]),
    onCreated,
    [`recovery_min_apply_delay=${applyDelayMs}ms`],
  );
}
