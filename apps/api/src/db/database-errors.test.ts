import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { classifyDatabaseError, unavailableMessage } from './database-errors.js';

const known = (code: string, meta?: Record<string, unknown>) =>
  new Prisma.PrismaClientKnownRequestError('x', { code, clientVersion: '7', meta });

/** What pg throws for an error the server sent (our raw statements see it under the adapter). */
function pgError(code: string, message = `server error ${code}`): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = code.startsWith('57P') ? 'FATAL' : 'ERROR';
  return error;
}

/** What @prisma/adapter-pg and pglite-prisma-adapter throw for it: `postgres` kind unless they map the code. */
function adapterError(code: string): DriverAdapterError {
  const mapped: Record<string, string> = {
    '3D000': 'DatabaseDoesNotExist',
    '42P01': 'TableDoesNotExist',
    '53300': 'TooManyConnections',
  };
  const kind = mapped[code];
  return new DriverAdapterError(
    kind === undefined
      ? {
          kind: 'postgres',
          code,
          severity: 'ERROR',
          message: 'm',
          detail: undefined,
          column: undefined,
          hint: undefined,
          originalCode: code,
          originalMessage: 'm',
        }
      : ({ kind, originalCode: code, originalMessage: 'm' } as never),
  );
}

/** What the Prisma client throws for it (a raw query: P2010, a model query: P2039). */
const prismaError = (code: string) => known('P2010', { driverAdapterError: adapterError(code) });

/** Each SQLSTATE in the three shapes it reaches us in. */
const shapes = (code: string) =>
  [
    [`pg ${code}`, pgError(code)],
    [`adapter ${code}`, adapterError(code)],
    [`prisma ${code}`, prismaError(code)],
  ] as const;

describe('classifyDatabaseError', () => {
  describe.each([
    // [family, SQLSTATE, may a write have committed?, a time limit?]
    ['57P01 admin shutdown (restart, failover, pg_terminate_backend)', '57P01', true, false],
    ['57P02 crash shutdown', '57P02', true, false],
    ['57P03 cannot connect now (starting up, recovery)', '57P03', false, false],
    ['57P04 database dropped', '57P04', false, false],
    ['08006 connection failure', '08006', true, false],
    ['08001 cannot establish a connection', '08001', false, false],
    ['08007 transaction resolution unknown', '08007', true, false],
    ['53300 too many connections', '53300', false, false],
    ['53100 disk full', '53100', false, false],
    ['25006 read-only transaction (a standby)', '25006', false, false],
    ['3D000 missing database', '3D000', false, false],
    ['55000 the database does not accept connections', '55000', false, false],
    ['28000 role not permitted to log in', '28000', false, false],
    ['28P01 password refused (a rotation)', '28P01', false, false],
    ['3F000 missing schema', '3F000', false, false],
    ['42P01 missing table', '42P01', false, false],
    ['57014 statement timeout', '57014', false, true],
    ['25P03 idle in transaction timeout', '25P03', false, true],
  ] as const)('%s', (_family, code, outcomeUnknown, timedOut) => {
    it.each(shapes(code))('%s is unavailable with its SQLSTATE', (_shape, error) => {
      expect(classifyDatabaseError(error)).toEqual({ reason: code, outcomeUnknown, timedOut });
    });
  });

  it.each([
    ['23505 unique violation', '23505'],
    ['23503 foreign key violation', '23503'],
    ['42601 syntax error (a bug of ours)', '42601'],
    ['42703 undefined column (a bug of ours)', '42703'],
    ['22P02 invalid input', '22P02'],
    ['40001 serialization failure', '40001'],
    ['XX000 internal error', 'XX000'],
  ])('leaves %s a 500', (_name, code) => {
    for (const [, error] of shapes(code)) expect(classifyDatabaseError(error)).toBeUndefined();
  });

  it.each([
    ['P1001 (cannot reach the server)', known('P1001'), 'P1001', false],
    ['P2024 (no pool connection in time)', known('P2024'), 'P2024', false],
    ['P1017 (server closed the connection)', known('P1017'), 'P1017', true],
    [
      'a driver adapter error of kind DatabaseNotReachable',
      { kind: 'DatabaseNotReachable' },
      'DatabaseNotReachable',
      false,
    ],
    [
      'an adapter ConnectionClosed (ECONNRESET)',
      new DriverAdapterError({ kind: 'ConnectionClosed' }),
      'ConnectionClosed',
      true,
    ],
    [
      'ECONNREFUSED under a cause',
      Object.assign(new Error('wrapped'), { cause: { code: 'ECONNREFUSED' } }),
      'ECONNREFUSED',
      false,
    ],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'ECONNRESET', true],
    [
      'pg-pool saturated for longer than its acquire timeout',
      new Error('timeout exceeded when trying to connect'),
      'pool acquire timeout',
      false,
    ],
    [
      'a connect that timed out',
      new Error('Connection terminated due to connection timeout'),
      'connect timeout',
      false,
    ],
    [
      'a socket closed under a query',
      new Error('Connection terminated unexpectedly'),
      'connection terminated',
      true,
    ],
    [
      'a query whose answer never came (network partition)',
      new Error('Query read timeout'),
      'query read timeout',
      true,
    ],
    [
      'a broken pg client',
      new Error('Client has encountered a connection error and is not queryable'),
      'connection broken',
      false,
    ],
    ['a closed PGlite', new Error('PGlite is closed'), 'closed', false],
  ])('is unavailable for %s', (_name, error, reason, outcomeUnknown) => {
    expect(classifyDatabaseError(error)).toMatchObject({ reason, outcomeUnknown });
  });

  it.each([
    ['a constraint violation', known('P2002')],
    ['a record not found', known('P2025')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a non-error', 'oops'],
    ['a message that merely mentions a code', new Error('57P01')],
  ])('is false for %s', (_name, error) => {
    expect(classifyDatabaseError(error)).toBeUndefined();
  });

  it('tells the client whether a write may have been applied', () => {
    const lost = classifyDatabaseError(pgError('57P01'));
    const refused = classifyDatabaseError(pgError('57P03'));
    const slow = classifyDatabaseError(pgError('57014'));
    if (!lost || !refused || !slow) throw new Error('expected verdicts');
    expect(unavailableMessage(lost)).toMatch(
      /a read can simply be retried; a write may or may not have been applied.*Idempotency-Key/,
    );
    expect(unavailableMessage(refused)).toMatch(/unavailable \(57P03\); nothing was applied/);
    expect(unavailableMessage(slow)).toMatch(/did not answer in time \(57014\); nothing was applied/);
  });

  it('tells the client that an exhausted id sequence is no outage a retry outlives', () => {
    const full = classifyDatabaseError(pgError('2200H'));
    expect(full).toMatchObject({ reason: '2200H', outcomeUnknown: false, timedOut: false, full: true });
    if (!full) throw new Error('expected a verdict');
    expect(unavailableMessage(full)).toMatch(/id sequence reached its maximum.*until an operator acts/);
  });
});
