import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { isDatabaseUnavailable } from './database-errors.js';

const known = (code: string) => new Prisma.PrismaClientKnownRequestError('x', { code, clientVersion: '7' });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['P1001 (cannot reach the server)', known('P1001')],
    ['P2024 (no pool connection in time)', known('P2024')],
    ['a driver adapter error of kind DatabaseNotReachable', { kind: 'DatabaseNotReachable' }],
    ['ECONNREFUSED under a cause', Object.assign(new Error('wrapped'), { cause: { code: 'ECONNREFUSED' } })],
    [
      'pg-pool saturated for longer than its connect timeout',
      new Error('timeout exceeded when trying to connect'),
    ],
    ['a query whose answer never came (network partition)', new Error('Query read timeout')],
  ])('is true for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a constraint violation', known('P2002')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a non-error', 'oops'],
  ])('is false for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
