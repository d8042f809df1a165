/**
 * Graceful shutdown: SIGTERM while creates are in flight. Every in-flight request completes with 2xx, new
 * connections are refused from then on, the process exits 0 before its shutdown deadline.
 *
 * The creates are held in flight deterministically: the test takes an EXCLUSIVE lock on the pets table, so
 * each INSERT waits in PostgreSQL (and the rest wait for a pool connection) until the lock is released,
 * after SIGTERM. Hence PostgreSQL only: PGlite runs inside the API process and cannot be locked from outside.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { stringifyJson } from '@petstore/schema';
import pg from 'pg';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { startApiProcess } from './api-process.js';
import {
  authHeaders,
  createRandom,
  type ScenarioEnvironment,
  type ScenarioResult,
  samplePet,
  sleep,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';

export interface ShutdownOptions {
  seed: number;
  /** Creates in flight when SIGTERM arrives. */
  inFlight: number;
}

/** POST on a connection of its own (`Connection: close`), so no idle keep-alive socket muddles the picture. */
function postOnce(
  baseUrl: string,
  body: string,
): Promise<{ status: number; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(
      `${baseUrl}/pets`,
      {
        method: 'POST',
        agent: false,
        headers: { ...authHeaders, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', (error) => resolve({ error: error.message }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(body);
  });
}

/** Whether a new TCP connection to the port is refused right now. */
function connectionRefused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

export async function runShutdownScenario(
  env: ScenarioEnvironment,
  options: ShutdownOptions,
): Promise<ScenarioResult> {
  const random = createRandom(options.seed);
  return withTempDir('petstore-shutdown-', (dataDir) =>
    withPostgresDatabase(env, 'shutdown', async (database) => {
      const violations: string[] = [];
      const api = await startApiProcess({ databaseUrl: database.url, dataDir });
      const locker = new pg.Client({ connectionString: database.url });
      await locker.connect();
      // pg_stat_activity is read once per transaction, so the locker (inside one) cannot watch it.
      const observer = new pg.Client({ connectionString: database.url });
      await observer.connect();
      try {
        await locker.query('begin');
        await locker.query('lock table pets in exclusive mode');
        const newPets = Array.from({ length: options.inFlight }, (_, i) => samplePet(random, `drain ${i}`));
        const replies = newPets.map((pet) => postOnce(api.baseUrl, stringifyJson(pet)));

        // Wait until the first creates are blocked inside PostgreSQL, then give the others a moment to be
        // read by the server (they queue for a pool connection). The lock is held well under the pool's
        // connection timeout (3 s), so the queued ones are delayed, not failed.
        const waitingWithinMs = scaled(15_000);
        const waitingDeadline = Date.now() + waitingWithinMs;
        let waiting = 0;
        while (Date.now() < waitingDeadline) {
          const { rows } = await observer.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
          );
          waiting = rows[0]?.n ?? 0;
          if (waiting > 0) break;
          await sleep(50);
        }
        if (waiting === 0)
          violations.push(`no create reached the database lock within ${waitingWithinMs} ms`);
        await sleep(500);

        const signalledAt = Date.now();
        api.child.kill('SIGTERM');
        let refusedAfterMs: number | undefined;
        const refusedWithinMs = scaled(10_000);
        while (Date.now() - signalledAt < refusedWithinMs) {
          if (await connectionRefused(api.host, api.port)) {
            refusedAfterMs = Date.now() - signalledAt;
            break;
          }
          await sleep(20);
        }
        if (refusedAfterMs === undefined)
          violations.push(`new connections were still accepted ${refusedWithinMs} ms after SIGTERM`);
        const stillRunning = api.child.exitCode === null && api.child.signalCode === null;
        if (!stillRunning) violations.push('the process exited with requests still in flight');

        await locker.query('commit');
        const results = await Promise.all(replies);
        const exit = await Promise.race([api.exited, sleep(scaled(30_000)).then(() => undefined)]);
        const exitedAfterMs = Date.now() - signalledAt;

        const failed = results.filter(
          (result) => !('status' in result) || result.status < 200 || result.status > 299,
        );
        for (const result of failed.slice(0, 10))
          violations.push(`an in-flight create ended with ${JSON.stringify(result).slice(0, 200)}`);
        const serverErrors = results.filter((result) => 'status' in result && result.status >= 500).length;
        if (exit === undefined) violations.push('the process did not exit within 30 s of SIGTERM');
        else if (exit.code !== 0)
          violations.push(`the process exited with ${exit.code ?? exit.signal}, not 0`);
        if (serverErrors > 0) violations.push(`server output: ${api.output().slice(-3000)}`);
        if (api.output().includes('shutdown deadline reached')) {
          violations.push('the shutdown deadline cut connections: draining did not finish by itself');
        }
        const { rows } = await locker.query<{ n: number }>('select count(*)::int as n from pets');
        const stored = rows[0]?.n ?? 0;
        const acknowledged = results.length - failed.length;
        if (stored < acknowledged) violations.push(`${acknowledged} creates acknowledged, ${stored} stored`);

        return {
          scenario: 'graceful shutdown (SIGTERM)',
          database: 'postgresql' as const,
          requestsSent: results.length,
          faultsInjected: 1,
          serverErrors,
          acknowledgedWritesLost: Math.max(0, acknowledged - stored),
          recoveryMs: undefined,
          details: {
            inFlight: options.inFlight,
            blockedInDatabase: waiting,
            completed2xx: acknowledged,
            refusedNewConnectionsAfterMs: refusedAfterMs,
            exitedAfterMs,
            exitCode: exit?.code,
          },
          violations,
        };
      } finally {
        await locker.end().catch(() => {});
        await observer.end().catch(() => {});
        await api.kill();
      }
    }),
  );
}
