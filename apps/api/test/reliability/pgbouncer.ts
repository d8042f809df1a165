/**
 * PgBouncer from Debian's packages (scripts/ensure-pgbouncer.sh installs it in CI; 1.18 on Debian 12, which does
 * not track protocol-level prepared statements) in front of a PostgreSQL server, as an operator deploys it:
 * `pool_mode = transaction`, `default_pool_size = 5`. An ini file in a temp directory, a free 127.0.0.1 port, no
 * unix socket, trust auth (the servers it fronts are the test's own, trust on 127.0.0.1). It runs as the
 * `postgres` user when started as root (PgBouncer refuses root) and is stopped by its pid. No vitest import:
 * `pnpm reliability` and `pnpm scale-test` use this too.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { findFreePort } from '../support/postgres-server.js';
import { makeTempDir, removeTempDir, spawnOwned, stopProcess } from '../support/run-registry.js';
import { sleep } from './scenario-support.js';
import { ensureSystemTool, type SystemTool } from './system-tool.js';

const PGBOUNCER: SystemTool = {
  name: 'PgBouncer',
  packageName: 'pgbouncer',
  pathVariable: 'PGBOUNCER_PATH',
  candidates: ['pgbouncer', '/usr/sbin/pgbouncer'],
  versionArgs: ['--version'],
  script: 'ensure-pgbouncer.sh',
  neededBy: 'the tests behind a transaction-mode PgBouncer',
};

/** The pgbouncer binary, installed by scripts/ensure-pgbouncer.sh where it can be (./system-tool.ts). */
export const ensurePgbouncer = (): string => ensureSystemTool(PGBOUNCER);

export interface Pgbouncer {
  port: number;
  /** `SELECT version()`-style first line of `pgbouncer --version`: `PgBouncer 1.18.0`. */
  version: string;
  /** `url` with its host and port replaced by PgBouncer's: the same database and user, through the pooler. */
  through(url: string): string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface PgbouncerOptions {
  /** The PostgreSQL server it pools: 127.0.0.1 and this port. */
  serverPort: number;
  poolMode?: 'transaction' | 'session';
  /** Server connections per database and user. */
  poolSize?: number;
  /**
   * Whether the ini lists the api's start-up parameters in ignore_startup_parameters (true by default, as
   * docs/operations.md advises). False is PgBouncer as shipped: it refuses them at login, and the api connects
   * without them (db/database.ts, openCheckedPool).
   */
  ignoreStartupParameters?: boolean;
}

/**
 * The configuration a production set-up would start from (docs/operations.md#pgbouncer). The api's pool sends
 * statement_timeout and idle_in_transaction_session_timeout as start-up parameters, which PgBouncer 1.18 refuses
 * unless told to ignore them (operators then set them on the role: docs/operations.md); without that line the api
 * connects without them. After a failed login to
 * its server (a restart) PgBouncer refuses clients for server_login_retry, 15 s by default: 1 s here, so that a
 * restarted replica is used again within a second (docs/operations.md#connection-poolers).
 */
function pgbouncerConfig(port: number, dir: string, options: PgbouncerOptions): string {
  return `[databases]
* = host=127.0.0.1 port=${options.serverPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'userlist.txt')}
pidfile = ${join(dir, 'pgbouncer.pid')}
pool_mode = ${options.poolMode ?? 'transaction'}
default_pool_size = ${options.poolSize ?? 5}
max_client_conn = 1000
server_login_retry = 1
${options.ignoreStartupParameters === false ? '' : 'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout\n'}`;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + scaled(30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}):\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`pgbouncer did not listen on ${port}:\n${output()}`);
}

export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  const binary = ensurePgbouncer();
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  const dir = await makeTempDir('petstore-pgbouncer-');
  // As root it runs as `postgres`, who writes its pidfile here.
  await chmod(dir, 0o777);
  const port = await findFreePort();
  const ini = join(dir, 'pgbouncer.ini');
  // trust still needs every user it lets in listed: the test servers' roles.
  await writeFile(join(dir, 'userlist.txt'), '"postgres" ""\n"root" ""\n');
  await writeFile(ini, pgbouncerConfig(port, dir, options));
  const asRoot = process.getuid?.() === 0;
  const user = asRoot
    ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    : undefined;
  const group = asRoot
    ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    : undefined;
  // In the foreground (no -d), logging to stderr; the user switch happens before exec, so spawnOwned's
  // parent-death signal (set after it) still applies.
  const child = spawnOwned(binary, [ini], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user === undefined ? {} : { uid: user, gid: group }),
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16 * 1024);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const stop = async () => {
    await stopProcess(child, scaled(5_000));
    await removeTempDir(dir);
  };
  try {
    await waitForPort(port, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    version,
    through(url) {
      const parsed = new URL(url);
      parsed.host = `127.0.0.1:${port}`;
      return parsed.toString();
    },
    child,
    stop,
  };
}
