// The API's server makes its requests and responses with Express's prototypes (server-limits.ts messageClasses), so
// that Express's per-request Object.setPrototypeOf changes nothing. Checked here: the objects the listener gets have
// them before Express runs, are still Node's messages, and the answers are those of a plain server (Node's own
// classes, as `app.listen` makes it), on generated requests.
import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import type { Database } from '../src/db/database.js';
import { createHttpServer } from '../src/server-limits.js';
import { openMemoryApp } from './support/memory-database.js';
import { TEST_API_KEY } from './support/test-server.js';

const LIMITS = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 100,
};

let database: Database;
const servers: Server[] = [];
/** What the listener of the server with Express's classes saw, request by request. */
const seen: { request: boolean; response: boolean; node: boolean }[] = [];
let withClasses: string;
let plain: string;

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const opened = await openMemoryApp();
  database = opened.database;
  const { app } = opened;
  await database.sql.rows("INSERT INTO pets (name, category_id, status) VALUES ('Rex', 1, 'available')");
  withClasses = await listen(
    createHttpServer(
      (req, res) => {
        seen.push({
          request: Object.getPrototypeOf(req) === app.request,
          response: Object.getPrototypeOf(res) === app.response,
          node: req instanceof IncomingMessage && res instanceof ServerResponse,
        });
        app(req, res);
      },
      LIMITS,
      { request: app.request, response: app.response },
    ),
  );
  plain = await listen(createServer(app));
}, timeouts.hook);

afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await database?.close();
}, timeouts.hook);

/** What a caller can tell of an answer: status, headers but the ones that differ per request, body. */
async function answer(base: string, request: { method: string; path: string; key: boolean }) {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.key ? { authorization: `Bearer ${TEST_API_KEY}` } : {},
  });
  // The serving address shows in some answers (the OpenAPI document's server, a Link, and so the document's ETag and,
  // with another number of digits in the port, its length): the two servers differ there.
  const local = (text: string) => text.replaceAll(base, 'http://server');
  const headers = [...response.headers]
    .filter(([name]) => !['date', 'x-request-id', 'etag', 'content-length'].includes(name))
    .map(([name, value]) => [name, local(value)]);
  return { status: response.status, headers, body: local(await response.text()) };
}

describe('requests and responses made with Express prototypes', () => {
  it(
    'have them before Express runs, are Node messages, and get the answers of a plain server',
    async () => {
      const request = fc.record({
        method: fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'),
        path: fc.constantFrom(
          '/v1/pets',
          '/v1/pets?limit=1',
          '/v1/pets?limit=0',
          '/v1/pets/1',
          '/v1/pets/99',
          '/v1/pets/x',
          '/v1/trpc/pets.list',
          '/v1/openapi.json',
          '/healthz',
          '/nowhere',
        ),
        key: fc.boolean(),
      });
      await fc.assert(
        fc.asyncProperty(request, async (each) => {
          expect(await answer(withClasses, each)).toEqual(await answer(plain, each));
        }),
        { numRuns: 100 },
      );
      expect(seen.length).toBeGreaterThanOrEqual(100);
      expect(seen.filter((each) => !(each.request && each.response && each.node))).toEqual([]);
    },
    timeouts.server,
  );
});
