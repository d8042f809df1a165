// Slow and greedy clients against the real app on a server made by createHttpServer, with small limits so
// that each case takes a few seconds. Durations are checked against the limit the server must not wait for
// instead (a longer limit, Node's defaults), with margins scaled by PETSTORE_TEST_TIME_SCALE: never tighter.
import { readFileSync } from 'node:fs';
import type { Server, ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from '../../../tooling/vitest.shared.js';
import type { ServerLimits } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { createHttpServer } from '../src/server-limits.js';
import { openMemoryApp } from './support/memory-database.js';
import { TEST_API_KEY } from './support/test-server.js';

const LIMITS: ServerLimits = {
  // Far enough above the headers timeout that a busy machine cannot make one look like the other.
  requestTimeoutMs: scaled(3_000),
  headersTimeoutMs: 400,
  keepAliveTimeoutMs: 1_000,
  maxConnections: 3,
};
/** How late Node may cut a connection: it checks the timeouts every `min(1 s, headersTimeoutMs)`. */
const CHECK_SLACK_MS = LIMITS.headersTimeoutMs + 300;

let database: Database;
let server: Server;
let port: number;

beforeAll(async () => {
  const opened = await openMemoryApp();
  database = opened.database;
  const { app } = opened;
  server = createHttpServer(app, LIMITS, { request: app.request, response: app.response });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await database?.close();
});

/** A raw connection that records what the server sends and when it closes the connection. */
async function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, received: () => received, closed };
}

/** Resolves once `check()` holds; fails after `withinMs` (a bound for a busy machine, not a speed claim). */
async function until(check: () => boolean, what: string, withinMs = scaled(10_000)): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
  }
}

const answered200 = (client: { received: () => string }, count = 1) =>
  (client.received().match(/HTTP\/1\.1 200 /g) ?? []).length >= count;

/** Writes `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || index >= text.length) return clearInterval(timer);
    socket.write(text[index++] ?? '');
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

const GET_PETS = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n\r\n`;

describe('createHttpServer limits', () => {
  it('cuts off a request whose body never finishes at the request timeout', async () => {
    const client = await open();
    const started = Date.now();
    client.socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${TEST_API_KEY}\r\nContent-Length: 1000\r\n\r\n{"name":`,
    );
    trickle(client.socket, ' '.repeat(1000), 100); // keeps sending, never reaches 1000 bytes in time
    const elapsed = (await client.closed) - started;
    expect(elapsed).toBeGreaterThanOrEqual(LIMITS.requestTimeoutMs - 50);
    // Long before Node's own default (300 s): this limit, not another, ended it.
    expect(elapsed).toBeLessThan(LIMITS.requestTimeoutMs + CHECK_SLACK_MS + scaled(10_000));
    expect(client.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });

  it('cuts off headers that trickle in at the headers timeout', async () => {
    const client = await open();
    const started = Date.now();
    trickle(client.socket, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(1000)}\r\n\r\n`, 50);
    const elapsed = (await client.closed) - started;
    expect(elapsed).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    // The headers timeout ended it, not the (longer) request timeout.
    expect(elapsed).toBeLessThan(LIMITS.requestTimeoutMs);
    expect(client.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
  });

  it('keeps an idle connection for the keep-alive timeout, longer than the headers timeout, then closes it', async () => {
    const client = await open();
    client.socket.write(GET_PETS);
    await until(() => answered200(client), 'the first answer');
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toContain(
      `Keep-Alive: timeout=${Math.floor(LIMITS.keepAliveTimeoutMs / 1000)}`,
    );
    const answered = Date.now();
    // Idle for longer than the headers timeout: the connection is still usable.
    await new Promise((resolve) => setTimeout(resolve, LIMITS.headersTimeoutMs + 150));
    client.socket.write(GET_PETS);
    await until(() => answered200(client, 2), 'the second answer on the kept-alive connection');
    expect(client.received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    // Then idle past the keep-alive timeout (plus Node's 1 s buffer): closed by the server, well before the
    // 65 s this server would otherwise keep it.
    const closedAt = await client.closed;
    expect(closedAt - answered).toBeLessThan(LIMITS.keepAliveTimeoutMs + 1_000 + scaled(10_000));
  });

  it('refuses connections over the cap, and accepts again once one is gone', async () => {
    const clients = await Promise.all(Array.from({ length: LIMITS.maxConnections }, () => open()));
    for (const client of clients) client.socket.write(GET_PETS);
    await until(() => clients.every((client) => answered200(client)), 'an answer on each connection');
    for (const client of clients) expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);

    const extra = await open();
    extra.socket.write(GET_PETS);
    await extra.closed;
    expect(extra.received()).toBe('');

    clients[0]?.socket.destroy();
    await clients[0]?.closed;
    // The server counts the closed connection out when it sees the close: until then a new one is refused.
    const connectAndGet = async () => {
      const client = await open();
      client.socket.write(GET_PETS);
      await Promise.race([client.closed, until(() => answered200(client), 'an answer').catch(() => {})]);
      return client;
    };
    let again = await connectAndGet();
    for (const started = Date.now(); !answered200(again) && Date.now() - started < scaled(10_000); ) {
      again = await connectAndGet();
    }
    expect(again.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const client of [...clients, again]) client.socket.destroy();
    await Promise.all([...clients, again].map((client) => client.closed));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server's side of each close
  });
});

/** Sends `raw` on a new connection and resolves with everything the server wrote before it closed. */
async function exchangeRaw(raw: string): Promise<string> {
  const client = await open();
  client.socket.write(raw);
  await client.closed;
  return client.received();
}

/** Splits a raw HTTP/1.1 answer into its status, headers (lower-cased names) and body. */
function parseRaw(text: string): { status: number; headers: Map<string, string>; body: string } {
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  const body = text.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('requests Node refuses before the app sees them', () => {
  const cases: [string, string, number, string][] = [
    // RFC 9110 section 9.1: a method the server does not know is 501; method names are case-sensitive tokens.
    ['an unknown method', 'FETCH /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n', 501, 'not_implemented'],
    ['a method in lower case', 'get /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n', 501, 'not_implemented'],
    ['a method that is no token', 'G@T /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
    [
      'a header name with a space',
      'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
      400,
      'malformed_request',
    ],
    [
      'a control character in a header value',
      'GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n',
      400,
      'malformed_request',
    ],
    [
      'two different Content-Lengths',
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      400,
      'malformed_request',
    ],
    ['an HTTP/1.1 request without Host', 'GET /v1/pets HTTP/1.1\r\n\r\n', 400, 'malformed_request'],
    ['not HTTP at all', 'hello\r\n\r\n', 400, 'malformed_request'],
    [
      'headers over the 16 KiB limit',
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'an Expect other than 100-continue',
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nExpect: teapot\r\n\r\n`,
      417,
      'expectation_failed',
    ],
  ];
  it.each(cases)('answers %s with an Error body and closes', async (_name, raw, status, code) => {
    const answer = parseRaw(await exchangeRaw(raw));
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('connection')).toBe('close');
    const body = JSON.parse(answer.body);
    expect(body).toEqual({ code, message: expect.any(String), status });
    // What every answer carries, as the document requires (RFC 9110 section 6.6.1: an origin server sends Date).
    expect(answer.headers.get('date')).toMatch(/GMT$/);
    expect(answer.headers.get('x-request-id')).toMatch(/^(parser-)?[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a request that times out with a 408 Error body', async () => {
    const client = await open();
    client.socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${TEST_API_KEY}\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    await client.closed;
    const answer = parseRaw(client.received());
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({
      code: 'request_timeout',
      message: expect.any(String),
      status: 408,
    });
  });

  // Node's parser keeps a request line to itself until the headers end, so a 408 for headers that did not arrive in
  // time names no operation (docs/operations.md). The served document marked each operation's own headers
  // (Petstore-Stability, getPet's deprecation) required on its 408, which such an answer could never carry.
  it('answers a headers timeout with every header the served document requires on that 408', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path
    type Json = Record<string, any>;
    const document = (await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).json()) as Json;
    const header = (ref: Json) =>
      ref.$ref === undefined ? ref : document.components.headers[ref.$ref.split('/').at(-1)];
    for (const target of ['/v1/pets/1', '/v1/pets', '/v1/pets/events']) {
      const client = await open();
      client.socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n`);
      await client.closed;
      const answer = parseRaw(client.received());
      expect(answer.status, target).toBe(408);
      const declared = (document.paths[target.replace('/v1', '').replace('/1', '/{petId}')] as Json).get
        .responses['408'].headers as Json;
      const required = Object.keys(declared).filter((name) => header(declared[name]).required === true);
      expect(
        required.filter((name) => !answer.headers.has(name.toLowerCase())),
        target,
      ).toEqual([]);
    }
  });

  it('carries the headers of the operation the refused request line names, as the document requires', async () => {
    // The document declares these statuses on every operation with the operation's headers (its stability level;
    // getPet's deprecation): the parser's answers carry them when its request line names one.
    const refusals = [
      `GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  b\r\n\r\n`,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET http://x/v1/pets/1 HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  b\r\n\r\n`,
      // A path with percent-encoded unreserved characters names the same operation (RFC 3986 section 6.2.2.2).
      `GET /v1/%70ets/1 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`,
      `GET http://x/v1/%70ets/%31 HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  b\r\n\r\n`,
      // A version the parser refuses still names the operation by its method and target.
      `GET /v1/pets HTTP/1.2\r\nHost: x\r\n\r\n`,
      `GET /v1/pets/1 http/1.1\r\nHost: x\r\n\r\n`,
      `GET /v1/pets HTTP/2.0\r\nHost: x\r\n\r\n`,
    ];
    for (const raw of refusals) {
      const answer = parseRaw(await exchangeRaw(raw));
      const what = raw.slice(0, raw.indexOf('\r'));
      expect(answer.status, what).toBeGreaterThanOrEqual(400);
      expect(answer.headers.get('petstore-stability'), what).toMatch(/^(stable|beta|experimental)$/);
      const getPet = /\/(pets|%70ets)\/(1|%31) /.test(what);
      expect(answer.headers.has('deprecation'), what).toBe(getPet);
      expect(answer.headers.has('sunset'), what).toBe(getPet);
    }
    // A line that names no operation: no operation's headers.
    const unknown = parseRaw(await exchangeRaw('hello\r\n\r\n'));
    expect(unknown.headers.has('petstore-stability')).toBe(false);
    // An unknown method is 501 only in a well-formed line; with a version that is not HTTP/1.x, malformed.
    expect(parseRaw(await exchangeRaw('FOO /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n')).status).toBe(501);
    expect(parseRaw(await exchangeRaw('FOO /v1/pets HTTP/1.2\r\nHost: x\r\n\r\n')).status).toBe(400);
  });

  it('answers a refused HEAD with the headers alone, Content-Length included (RFC 9110 section 9.3.2)', async () => {
    for (const raw of [
      'HEAD /v1/pets/1 HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
      `HEAD /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const answer = parseRaw(await exchangeRaw(raw));
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(Number(answer.headers.get('content-length'))).toBeGreaterThan(0);
      expect(answer.body).toBe('');
    }
  });

  it('closes the connection after a request asking to upgrade it, so a request pipelined behind is sent again, not lost', async () => {
    // Node reads nothing more of the connection after such a request: without the close, /readyz waited for ever.
    const client = await open();
    client.socket.write(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    await client.closed;
    expect(client.received().match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ']);
    expect(client.received()).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('does not write a second answer on a connection whose response has started', async () => {
    // A valid request answered in full, then garbage on the same kept-alive connection: exactly one 200,
    // then one 400 Error, never a response spliced into another.
    const answer = await exchangeRaw(`${GET_PETS}hello\r\n\r\n`);
    expect(answer.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 400 ']);
    // An unknown method behind it is judged on its own line, not on the request before it in the same packet.
    const unknown = await exchangeRaw(`${GET_PETS}FETCH / HTTP/1.1\r\n\r\n`);
    expect(unknown.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 200 ', 'HTTP/1.1 501 ']);
  });
});

describe('a client that pipelines requests and never reads the answers', () => {
  let pipelined: { server: Server; port: number; database: Database };
  /** Every request the handler was given, in order, with its connection. */
  const dispatched: { method: string; res: ServerResponse; socket: Socket }[] = [];
  /** Requests handed over while an earlier answer on their connection was unfinished (the rule: none). */
  let outOfTurn = 0;
  /** The most bytes answers on one connection held in user space at once (sampled as each answer finishes). */
  let mostHeld = 0;
  const heldBytes = (socket: Socket) =>
    dispatched.reduce(
      (sum, each) =>
        sum + (each.socket === socket && !each.res.writableFinished ? each.res.writableLength : 0),
      0,
    );

  beforeAll(async () => {
    const { database, app } = await openMemoryApp();
    const server = createHttpServer(
      (req, res) => {
        const socket = req.socket as Socket;
        const before = dispatched.findLast((each) => each.socket === socket);
        if (before !== undefined && !before.res.writableFinished) outOfTurn++;
        dispatched.push({ method: req.method ?? '', res, socket });
        res.once('finish', () => {
          mostHeld = Math.max(mostHeld, heldBytes(socket));
        });
        app(req, res);
      },
      // Limits no step of this test comes near: what is checked is how much is run and held, not when.
      { ...LIMITS, requestTimeoutMs: scaled(120_000), headersTimeoutMs: scaled(60_000) },
      { request: app.request, response: app.response },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pipelined = { server, port: (server.address() as AddressInfo).port, database };
  });
  afterAll(async () => {
    pipelined?.server.closeAllConnections();
    await new Promise((resolve) => pipelined?.server.close(resolve));
    await pipelined?.database.close();
  });

  it('runs no more requests than the OS buffers hold answers for, holds one answer, and answers all in order once read', async () => {
    const documentBytes = Buffer.byteLength(
      await (await fetch(`http://127.0.0.1:${pipelined.port}/v1/openapi.json`)).text(),
    );
    // The most a connection's OS buffers can take: the receiver's and the sender's caps (Linux autotuning).
    const osBytes = ['tcp_rmem', 'tcp_wmem']
      .map((name) => Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]))
      .reduce((sum, bytes) => sum + bytes, 0);
    // Enough OpenAPI documents that their answers cannot all fit there, then creates that must wait for them.
    const documents = Math.ceil(osBytes / documentBytes) + 2;
    const creates = 200;
    dispatched.length = 0;
    const client = connect(pipelined.port, '127.0.0.1');
    client.on('error', () => {});
    await new Promise((resolve) => client.once('connect', resolve));
    client.pause(); // nothing is read until the end
    client.write(
      'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(documents) +
        Array.from({ length: creates }, (_, i) => {
          const body = `{"name":"pipelined ${i}","categoryId":1}`;
          return (
            `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
          );
        }).join(''),
    );
    // The server is stuck once its last answer is written but cannot be handed to the OS: nothing more can run.
    await until(() => {
      const last = dispatched.at(-1)?.res;
      return last?.writableEnded === true && !last.writableFinished;
    }, 'an answer the OS cannot take');
    const socket = dispatched[0]?.socket as Socket;
    const held = heldBytes(socket);
    mostHeld = Math.max(mostHeld, held);
    expect(outOfTurn, 'requests handed over before the answer ahead of them finished').toBe(0);
    expect(dispatched.length, 'requests run').toBeLessThanOrEqual(1 + Math.floor(osBytes / documentBytes));
    expect(dispatched.filter((each) => each.method === 'POST')).toEqual([]);
    const [{ stored }] = (await pipelined.database.sql.rows(
      `SELECT count(*)::int AS stored FROM pets WHERE name LIKE 'pipelined %'`,
    )) as [{ stored: number }];
    expect(stored, 'creates run while no answer was read').toBe(0);
    expect(mostHeld, 'answer bytes held in user space').toBeLessThanOrEqual(
      documentBytes + 1_024 + socket.writableHighWaterMark,
    );
    expect(socket.writableLength).toBeLessThanOrEqual(documentBytes + 1_024 + socket.writableHighWaterMark);

    // Now read: every request is answered, in the order sent.
    const answers: { status: number; body: string }[] = [];
    let pending = Buffer.alloc(0);
    const done = new Promise<void>((resolve) => {
      client.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const headEnd = pending.indexOf('\r\n\r\n');
          if (headEnd < 0) break;
          const head = pending.subarray(0, headEnd).toString('latin1');
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
          if (pending.length < headEnd + 4 + length) break;
          const body = pending.subarray(headEnd + 4, headEnd + 4 + length);
          answers.push({ status: Number(head.slice(9, 12)), body: body.toString('utf8') });
          pending = pending.subarray(headEnd + 4 + length);
        }
        if (answers.length === documents + creates) resolve();
      });
    });
    client.resume();
    await done;
    client.destroy();
    expect(answers.slice(0, documents).map((each) => each.status)).toEqual(Array(documents).fill(200));
    expect(answers.slice(documents).map((each) => [each.status, JSON.parse(each.body).name])).toEqual(
      Array.from({ length: creates }, (_, i) => [201, `pipelined ${i}`]),
    );
    expect(outOfTurn).toBe(0);
  });
});
