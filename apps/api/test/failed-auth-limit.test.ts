// With a rate limit set, requests with a missing or wrong key are limited per client address: one address that
// keeps guessing is refused with 429 (its valid keys still served), while another address (here ::1 against 127.0.0.1, on a dual-stack
// listener) is not affected, on every route.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listMigrationNames } from '@petstore/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import type { Sql } from '../src/db/sql.js';
import { createApiKeysService } from '../src/keys/api-keys.service.js';
import { createLogger } from '../src/logger.js';
import { atStartOfRateWindow } from './support/http.js';
import { openMemoryApp, openMigratedMemoryDatabase } from './support/memory-database.js';
import { TEST_API_KEY } from './support/test-server.js';

describe('failed authentications are limited per client address', () => {
  let database: Database;
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const opened = await openMemoryApp({ rateLimitPerMinute: 3 });
    database = opened.database;
    const { app } = opened;
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '::', () => resolve(listening));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await database?.close();
  });

  const status = async (host: string, path: string, key: string) =>
    (await fetch(`http://${host}:${port}/v1${path}`, { headers: { authorization: `Bearer ${key}` } })).status;

  it('refuses a guessing address with 429 on REST, tRPC and unknown paths, and not another address', async () => {
    await atStartOfRateWindow();
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await status('127.0.0.1', '/pets', `wrong-key-0123456789-${i}`));
    expect(guesses).toEqual([401, 401, 401]);
    expect(await status('127.0.0.1', '/pets', 'wrong-key-0123456789-x')).toBe(429);
    expect(await status('127.0.0.1', '/trpc/pets.list', 'wrong-key-0123456789-y')).toBe(429);
    expect(await status('127.0.0.1', '/nope', 'wrong-key-0123456789-z')).toBe(429);
    // A valid key from the guessing address is served: behind a balancer, every client shares one address.
    expect(await status('127.0.0.1', '/pets', TEST_API_KEY)).toBe(200);
    expect(await status('[::1]', '/pets', TEST_API_KEY)).toBe(200);
    expect(await status('[::1]', '/pets', 'wrong-key-0123456789-w')).toBe(401);
  });
});

// Over the limit, a made-up key must cost nothing but the refusal: the limit is checked before the key is looked up.
// It was checked after, so every new made-up `psk_` key from a refused address still cost a query on api_keys.
describe('an address over its failed-authentication limit', () => {
  let database: Database;
  let server: Server;
  let base: string;
  let issuedKey: string;
  const lookups = { count: 0 };
  beforeAll(async () => {
    database = await openMigratedMemoryDatabase();
    const sql: Sql = {
      rows(statement, args) {
        if (/\bapi_keys\b/.test(statement)) lookups.count += 1;
        return database.sql.rows(statement, args);
      },
    };
    const app = createApp({
      sql,
      logger: createLogger('silent'),
      apiKeys: [TEST_API_KEY],
      migrations: await listMigrationNames(),
      rateLimitPerMinute: 5,
    });
    issuedKey = (await createApiKeysService(database.prisma).create('behind the balancer')).key;
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '::', () => resolve(listening));
    });
    base = `:${(server.address() as AddressInfo).port}/v1/pets`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await database?.close();
  });

  const status = async (host: string, key: string) =>
    (await fetch(`http://${host}${base}`, { headers: { authorization: `Bearer ${key}` } })).status;

  it('refuses a made-up key without looking it up; a key of API_KEYS from it is still served', async () => {
    await atStartOfRateWindow();
    const failures = [];
    for (let i = 0; i < 5; i++) failures.push(await status('127.0.0.1', `psk_made-up-key-0123456789-${i}`));
    expect(failures).toEqual([401, 401, 401, 401, 401]);
    expect(lookups.count).toBe(5);
    // The 6th failure: refused before any lookup.
    expect(await status('127.0.0.1', 'psk_made-up-key-0123456789-6')).toBe(429);
    expect(lookups.count).toBe(5);
    // A key of API_KEYS is checked in memory: still served from that address (every client behind a balancer).
    expect(await status('127.0.0.1', TEST_API_KEY)).toBe(200);
    // An issued key would need the lookup the limit saves: refused from that address until the window ends, served
    // from any other.
    expect(await status('127.0.0.1', issuedKey)).toBe(429);
    expect(lookups.count).toBe(5);
    expect(await status('[::1]', issuedKey)).toBe(200);
    expect(lookups.count).toBe(6);
  });
});
