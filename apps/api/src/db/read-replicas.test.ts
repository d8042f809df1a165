// The read routing of db/read-replicas.ts with stand-in databases: which one answers a read, and what is
// counted. The real thing (a streaming replica, PgBouncer, HAProxy) is test/reliability/read-replica.test.ts and
// database-tier.test.ts.
import type { ServerResponse } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../logger.js';
import { createReadReplicas, type ReadReplicas } from './read-replicas.js';
import type { Sql } from './sql.js';

/** A database that answers every read with its name, or throws `failure` when set. */
function standIn(name: string) {
  const state: { failure?: unknown } = {};
  const sql: Sql = {
    async rows() {
      if (state.failure !== undefined) throw state.failure;
      return [{ name }] as never[];
    },
  };
  return { sql, state };
}

const opened: ReadReplicas[] = [];
afterEach(() => {
  for (const replicas of opened.splice(0)) replicas.close();
});

async function setUp(
  positions: { primary: string; replica: string | null },
  logger: Logger = createLogger('silent'),
) {
  const primary = standIn('primary');
  const replica = standIn('replica');
  const written: Record<string, string> = {};
  const replicas = createReadReplicas({
    primary: primary.sql,
    primaryPosition: async () => positions.primary,
    replicas: [{ name: 'r1', sql: replica.sql, replayPosition: async () => positions.replica }],
    logger,
    maxLagMs: 60_000,
  });
  opened.push(replicas);
  // The first poll runs at once; let it finish.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => {
      written[name] = value;
    },
  } as unknown as ServerResponse;
  /** One read under a request that carries `after` (or no position). */
  const read = (after?: string) =>
    new Promise<unknown[][]>((resolve, reject) =>
      replicas.withRequest(
        { headers: after === undefined ? {} : { 'petstore-read-after': after } },
        response,
        () => {
          replicas.reads.rows('SELECT 1').then((rows) => resolve(rows.map((row) => [row.name])), reject);
        },
      ),
    );
  const write = () =>
    new Promise<void>((resolve, reject) =>
      replicas.withRequest({ headers: {} }, response, () => {
        replicas.afterWrite().then(resolve, reject);
      }),
    );
  return { replicas, replica, read, write, written, positions };
}

describe('read routing to replicas', () => {
  it('reads a request without a position from the replica, and one whose position it has replayed', async () => {
    const { read, replicas } = await setUp({ primary: '0/20', replica: '0/20' });
    expect(await read()).toEqual([['replica']]);
    expect(await read('0/1F')).toEqual([['replica']]);
    expect(await read('0/20')).toEqual([['replica']]);
    expect(Object.fromEntries(replicas.routes())).toEqual({ replica: 3 });
  });

  it('reads from the primary when the request carries a position the replica has not replayed', async () => {
    const { read, replicas } = await setUp({ primary: '0/30', replica: '0/20' });
    expect(await read('0/21')).toEqual([['primary']]);
    expect(await read('1/0')).toEqual([['primary']]);
    expect(Object.fromEntries(replicas.routes())).toEqual({ 'primary:no_replica_caught_up': 2 });
  });

  it('returns the primary position after a write, for the client to send back', async () => {
    const { write, written } = await setUp({ primary: '16/B374D848', replica: '16/B374D848' });
    await write();
    expect(written).toEqual({ 'Petstore-Read-After': '16/B374D848' });
  });

  it('sends a read the replica cancels for a recovery conflict (40001) to the primary, and keeps the replica', async () => {
    const { read, replica, replicas } = await setUp({ primary: '0/20', replica: '0/20' });
    replica.state.failure = Object.assign(new Error('canceling statement due to conflict with recovery'), {
      code: '40001',
      severity: 'ERROR',
    });
    expect(await read()).toEqual([['primary']]);
    replica.state.failure = undefined;
    expect(await read()).toEqual([['replica']]);
    expect(Object.fromEntries(replicas.routes())).toEqual({ 'primary:replica_failed': 1, replica: 1 });
  });

  it('sends a read to the primary when the replica cannot serve, and skips the replica until a poll finds it', async () => {
    const { read, replica, replicas } = await setUp({ primary: '0/20', replica: '0/20' });
    replica.state.failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), {
      code: 'ECONNREFUSED',
    });
    expect(await read()).toEqual([['primary']]);
    replica.state.failure = undefined;
    expect(await read()).toEqual([['primary']]);
    expect(Object.fromEntries(replicas.routes())).toEqual({
      'primary:replica_failed': 1,
      'primary:replicas_down': 1,
    });
  });

  it('lets any other failure of a replica read through (a bug is a 500, not a retry elsewhere)', async () => {
    const { read, replica } = await setUp({ primary: '0/20', replica: '0/20' });
    replica.state.failure = new TypeError('a bug');
    await expect(read()).rejects.toThrow('a bug');
  });

  it('reads from the primary when the replica is not a standby (no replay position), and says so from the start', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    ) as unknown as Logger;
    const { read, replicas } = await setUp({ primary: '0/20', replica: null }, logger);
    expect(await read()).toEqual([['primary']]);
    expect(Object.fromEntries(replicas.routes())).toEqual({ 'primary:replicas_down': 1 });
    // A replica misconfigured from the start (a typo in DATABASE_READ_URL, the primary's own URL) is not silent.
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { level: 40, replica: 'r1', msg: 'read replica unavailable: its reads go to the primary' },
    ]);
  });
});
