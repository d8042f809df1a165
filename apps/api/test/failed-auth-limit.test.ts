// With a rate limit set, requests with a missing or wrong key are limited per client address: one address that
// keeps guessing is refused with 429 (its valid keys still served), while another address (here ::1 against 127.0.0.1, on a dual-stack
// listener) is not affected, on every route.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import { atStartOfRateWindow } from './support/http.js';
import { openMemoryApp } from './support/memory-database.js';
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
