// answerRules (request-context.ts): an error's head carries no validator and says no-store, however it is written
// (Node's implicit head, writeHead with fields as an object or a flat list, with or without a status
// message, Express's own senders), and a success keeps what its route set. Over a real server with the app's
// response prototype, as createHttpServer gives it.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageClasses } from '../server-limits.js';
import { answerRules } from './request-context.js';

const WAYS = ['implicit', 'object', 'flat', 'message', 'express'] as const;
type Way = (typeof WAYS)[number];

interface Case {
  status: number;
  way: Way;
  /** Set with setHeader before the head, or given to writeHead. */
  before: [string, string][];
  given: [string, string][];
}

let server: http.Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.set('etag', false); // as the app: a route sets its own
  answerRules(app.response);
  app.get('/', (req, res) => {
    const sent = JSON.parse(String(req.query.case)) as Case;
    for (const [name, value] of sent.before) res.setHeader(name, value);
    const given = sent.given;
    switch (sent.way) {
      case 'implicit':
        for (const [name, value] of given) res.setHeader(name, value);
        res.statusCode = sent.status;
        return res.end('x');
      case 'object':
        res.writeHead(sent.status, Object.fromEntries(given));
        return res.end('x');
      case 'flat':
        res.writeHead(sent.status, given.flat());
        return res.end('x');
      case 'message':
        res.writeHead(sent.status, 'Said so', Object.fromEntries(given));
        return res.end('x');
      case 'express':
        res.status(sent.status).set(Object.fromEntries(given)).send('x');
    }
  });
  server = http.createServer(messageClasses(app), app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const CACHING = ['ETag', 'Last-Modified', 'Expires', 'Cache-Control'];
const field = fc.record({
  name: fc.constantFrom(...CACHING, 'X-Other'),
  upper: fc.boolean(),
  value: fc.constantFrom('"a"', 'W/"b"', 'public, max-age=3600', 'Tue, 01 Dec 2026 00:00:00 GMT', 'v'),
});
const fields = fc
  .uniqueArray(field, { selector: ({ name }) => name, maxLength: 5 })
  .map((list) =>
    list.map(({ name, upper, value }): [string, string] => [upper ? name.toUpperCase() : name, value]),
  );

describe('answerRules', () => {
  it('sends no validator and no-store on every error head, however written; a success as its route set it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(200, 201, 204, 301, 304, 400, 401, 404, 405, 412, 429, 500, 503),
        fc.constantFrom(...WAYS),
        fields,
        fields,
        async (status, way, before, given) => {
          const sent: Case = { status, way, before, given };
          const response = await fetch(
            `http://127.0.0.1:${port}/?case=${encodeURIComponent(JSON.stringify(sent))}`,
            {
              redirect: 'manual',
            },
          );
          await response.arrayBuffer();
          expect(response.status).toBe(status);
          // What the route set last for a field wins (writeHead's fields over setHeader's).
          const set = new Map([...before, ...given].map(([name, value]) => [name.toLowerCase(), value]));
          for (const name of CACHING) {
            const got = response.headers.get(name);
            if (status >= 400) expect(got, name).toBe(name === 'Cache-Control' ? 'no-store' : null);
            else expect(got, name).toBe(set.get(name.toLowerCase()) ?? null);
          }
          expect(response.headers.get('X-Other')).toBe(set.get('x-other') ?? null);
        },
      ),
      { seed: 35, numRuns: 300 },
    );
  });
});
