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
  /** Stops the server at once (`-m immediate`) if it runs, and removes its files. Safe to call twice. */
  stop(): Promise<void>;
}

/** The directory of initdb and pg_ctl: on the PATH, else the newest /usr/lib/postgresql/<n>/bin. */
async function binDir(): Promise<string> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'initdb'))) return dir;
  }
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest !== undefined) return join('/usr/lib/postgresql', newest, 'bin');
  throw new Error('the restart scenario needs PostgreSQL server binaries (initdb, pg_ctl) on the PATH');
}

/**
 * Starts the cluster. `onCreated` receives it before the server is started, so that a caller's `finally` can
 * stop whatever part of it exists, whichever step fails.
 */
export async function startOwnCluster(onCreated: (cluster: OwnCluster) => void): Promise<OwnCluster> {
  const bin = await binDir();
  const asRoot = process.getuid?.() === 0;
  // As root: initdb and postgres run as `postgres`, who must be able to create the data directory inside.
  const baseDir = await makeTempDir('petstore-restart-pg-');
  await chmod(baseDir, 0o777);
  const dataDir = join(baseDir, 'data');
  const logFile = join(baseDir, 'server.log');
  const port = await findFreePort();
  const tool = (name: string, args: string[], timeout = 60_000) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, name), ...args], { timeout })
      : run(join(bin, name), args, { timeout });
  const pgCtl = (args: string[]) => tool('pg_ctl', ['-D', dataDir, ...args]);

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
  await tool('initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '--encoding=UTF8',
    '--locale=C',
  ]);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    // TCP only: no socket file in a shared directory.
    "-c unix_socket_directories=''",
    '-c fsync=off',
    '-c max_connections=100',
  ].join(' ');
  started = true;
  await pgCtl(['-w', '-t', '60', '-l', logFile, '-o', options, 'start']);
  recordServer();
  return cluster;
}
