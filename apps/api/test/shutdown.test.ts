// The stop of a graceful shutdown (shutdown.ts serverStopper), on the real app behind createHttpServer, on a real
// port, with raw keep-alive connections. What it guarantees (docs/operations.md, Shutdown):
//  1. every answer whose head is written after the stop begins says `Connection: close` (no Keep-Alive), and the
//     server closes its connection after it; of requests pipelined on one connection, the last one read says so and
//     every request read before its head is written is answered;
//  2. a connection idle when the stop begins is closed at once, cleanly (FIN), with nothing more written on it;
//  3. so a client that sends its next request only once it has a whole answer that lets it keep the connection
//     (RFC 9112 section 9.3) loses a request only right after an answer whose head was written BEFORE the stop (the
//     keep-alive race every server has, RFC 9112 section 9.3.1): never after one written after it.
// No assertion is on time: each step waits for the event it needs (bounded, for a busy machine).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scaled, timeouts } from '../../../tooling/vitest.shared.js';
import type { Database } from '../src/db/database.js';
import { createHttpServer } from '../src/server-limits.js';
import { serverStopper } from '../src/shutdown.js';
import { openMemoryApp } from './support/memory-database.js';
import { TEST_API_KEY } from './support/test-server.js';

const LIMITS = {
  requestTimeoutMs: 60_000,
  headersTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  maxConnections: 200,
};

let app: Awaited<ReturnType<typeof openMemoryApp>>['app'];
let database: Database;
beforeAll(async () => {
  ({ app, database } = await openMemoryApp());
  return () => database.close();
}, timeouts.hook);

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * The app on a server of its own, with `GET /hold/<name>`: a /healthz answered only once the test releases it, so
 * that a response is in flight when the stop begins. `read` counts the requests Node has read (pipelined ones
 * included, before their turn). `deferred` hands each other request to the app 0, 1 or 2 turns of the event loop
 * later, so that requests are in flight at any moment (the in-memory database answers within one turn).
 */
async function serve({ deferred = false } = {}) {
  const held = new Map<string, () => void>();
  const waiting = new Map<string, () => void>();
  let turn = 0;
  const listener: RequestListener = (req, res) => {
    const name = /^\/hold\/(\w+)$/.exec(req.url ?? '')?.[1];
    if (name === undefined) return deferred ? later(turn++ % 3, () => app(req, res)) : app(req, res);
    req.url = '/healthz';
    held.set(name, () => app(req, res));
    waiting.get(name)?.();
  };
  const server = createHttpServer(listener, LIMITS, { request: app.request, response: app.response });
  let read = 0;
  server.on('request', () => {
    read += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    read: () => read,
    /** Resolves once the request /hold/<name> has reached the app. */
    holding: (name: string) =>
      new Promise<void>((resolve) => (held.has(name) ? resolve() : waiting.set(name, resolve))),
    release: (name: string) => held.get(name)?.(),
  };
}

function later(turns: number, then: () => void): void {
  if (turns === 0) then();
  else setImmediate(() => later(turns - 1, then));
}

/** Resolves once `check()` holds; fails after `withinMs` (a bound for a busy machine, not a speed claim). */
async function until(check: () => boolean, what: string, withinMs = scaled(10_000)): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
  }
}

interface Answer {
  head: string;
  /** Whether it lets the client keep the connection (RFC 9112 section 9.3: HTTP/1.1 without `close`). */
  kept: boolean;
}

/**
 * A raw keep-alive connection. It splits what it receives into whole answers (all of ours have Content-Length);
 * `sent` counts the requests written; `ended` is whether the server closed it cleanly (FIN) rather than reset it.
 * With `next`, it behaves as a connection pool: after each whole answer that lets it keep the connection, it sends
 * `next` at once.
 */
async function connection(port: number, next?: () => string) {
  const socket: Socket = connect(port, '127.0.0.1');
  const answers: Answer[] = [];
  let sent = 0;
  let buffered = '';
  let ended = false;
  let error: Error | undefined;
  const write = (request: string) => {
    sent += (request.match(/ HTTP\/1\.1\r\n/g) ?? []).length;
    socket.write(request);
  };
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.slice(0, end);
      const length = Number(/^content-length: *(\d+)$/im.exec(head)?.[1]);
      if (!Number.isInteger(length)) throw new Error(`an answer without Content-Length: ${head}`);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      const kept = !/^connection: *close$/im.test(head);
      answers.push({ head, kept });
      if (kept && next !== undefined && !socket.destroyed) write(next());
    }
  });
  socket.on('end', () => {
    ended = true;
  });
  socket.on('error', (failed) => {
    error = failed;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  return {
    socket,
    write,
    answers,
    closed,
    sent: () => sent,
    /** Bytes received after the last whole answer. */
    partial: () => buffered,
    /** The server closed the connection with a FIN, after every byte of the last answer. */
    endedCleanly: () => ended && error === undefined && buffered === '',
  };
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
const saysClose = (answer: Answer | undefined) =>
  answer !== undefined && /^connection: *close$/im.test(answer.head) && !/^keep-alive:/im.test(answer.head);

describe('serverStopper: the stop of a graceful shutdown', () => {
  it(
    'each answer written after the stop begins says Connection: close and ends its connection; every request read is answered',
    async () => {
      const { server, port, read, holding, release } = await serve();
      const stop = serverStopper(server);

      // Idle at the stop: its one answer, before the stop, kept the connection.
      const idle = await connection(port);
      idle.write(GET('/healthz'));
      await until(() => idle.answers.length === 1, 'the answer before the stop');
      expect(idle.answers[0]?.kept).toBe(true);
      // In flight at the stop, on a client that reuses the connection whenever an answer lets it.
      const inFlight = await connection(port, () => GET('/healthz'));
      inFlight.write(GET('/hold/a'));
      // In flight at the stop with a request pipelined behind it, read before the stop.
      const pipelined = await connection(port);
      pipelined.write(GET('/hold/b') + GET('/healthz'));
      // In flight at the stop; a request is pipelined behind it after the stop.
      const pipelinedLater = await connection(port);
      pipelinedLater.write(GET('/hold/c'));
      // Half a request at the stop: its headers end after it.
      const halfRead = await connection(port);
      halfRead.write('GET /healthz HTTP/1.1\r\n');
      await Promise.all([holding('a'), holding('b'), holding('c')]);
      await until(() => read() === 5, 'every request before the stop read');

      let stopped = false;
      stop(() => {
        stopped = true;
      });

      // The idle connection: closed by the server at once, cleanly, nothing written on it.
      await idle.closed;
      expect(idle.endedCleanly()).toBe(true);
      expect(idle.answers).toHaveLength(1);

      pipelinedLater.write(GET('/healthz'));
      await until(() => read() === 6, 'the request pipelined after the stop read');
      halfRead.write('Host: x\r\n\r\n');
      for (const name of ['a', 'b', 'c']) release(name);
      await Promise.all([inFlight.closed, pipelined.closed, pipelinedLater.closed, halfRead.closed]);

      // One answer, the last, on each connection whose requests were read: it says close, and every request read
      // before it is answered. The pool sent nothing more on the connection.
      expect(inFlight.answers.map(saysClose)).toEqual([true]);
      expect(inFlight.sent()).toBe(1);
      expect(pipelined.answers.map(saysClose)).toEqual([false, true]);
      expect(pipelinedLater.answers.map(saysClose)).toEqual([false, true]);
      expect(halfRead.answers.map(saysClose)).toEqual([true]);
      for (const client of [inFlight, pipelined, pipelinedLater, halfRead]) {
        expect(client.answers.every((answer) => /^HTTP\/1\.1 200 /.test(answer.head))).toBe(true);
        expect(client.endedCleanly()).toBe(true);
      }
      await until(() => stopped, 'the server closed');
    },
    timeouts.server,
  );

  it(
    'under load, no request is lost after an answer written after the stop began',
    async () => {
      const { server, port, read } = await serve({ deferred: true });
      const stop = serverStopper(server);
      let stopping = false;
      let stopped = false;
      // The stop begins in the turn after the 400th request is read, with the requests of other connections in
      // flight. Test-side only: each answer says whether its head was written after the stop began.
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
        if (read() === 399)
          setImmediate(() => {
            stopping = true;
            stop(() => {
              stopped = true;
            });
          });
        const writeHead = res.writeHead;
        res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
          this.setHeader('X-Test-Written', stopping ? 'after-stop' : 'before-stop');
          return writeHead.apply(this, args);
        } as ServerResponse['writeHead'];
      });
      // Half the clients create pets, each named after its client and turn; the others read.
      const creates: string[][] = Array.from({ length: 16 }, () => []);
      const CREATE = (client: number) => {
        const sent = creates[client] as string[];
        const name = `load-${client}-${sent.length}`;
        sent.push(name);
        const body = JSON.stringify({ name, categoryId: 1 });
        return (
          `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
        );
      };
      const LIST = `GET /v1/pets?limit=2 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n\r\n`;
      const request = (client: number) =>
        client % 2 === 0 ? CREATE(client) : client % 4 === 1 ? LIST : GET('/healthz');
      const clients = await Promise.all(
        Array.from({ length: 16 }, (_, index) => connection(port, () => request(index))),
      );
      for (const [index, client] of clients.entries()) client.write(request(index));
      await Promise.all(clients.map((client) => client.closed));
      await until(() => stopped, 'the server closed');

      const written = (answer: Answer) => /^x-test-written: *(\S+)$/im.exec(answer.head)?.[1];
      const afterStop = clients.flatMap((client) =>
        client.answers.filter((answer) => written(answer) === 'after-stop'),
      );
      // The stop found requests in flight (else this test shows nothing), and every answer to them says close.
      expect(afterStop.length).toBeGreaterThan(0);
      for (const answer of afterStop) expect(saysClose(answer), answer.head).toBe(true);
      const stored = new Set(
        (await database.sql.rows<{ name: string }>("SELECT name FROM pets WHERE name LIKE 'load-%'")).map(
          (row) => row.name,
        ),
      );
      for (const [index, client] of clients.entries()) {
        expect(client.answers.every((answer) => /^HTTP\/1\.1 20[01] /.test(answer.head))).toBe(true);
        // No answer after one that said close: the connection's answers end with the first that says it.
        expect(client.answers.slice(0, -1).some((answer) => !answer.kept)).toBe(false);
        const unanswered = client.sent() - client.answers.length;
        if (unanswered > 0) {
          // Only the keep-alive race: one request, sent at once on an answer written before the stop and kept...
          expect(unanswered).toBe(1);
          expect(written(client.answers.at(-1) as Answer)).toBe('before-stop');
          // ...and never read: no byte of an answer came, and a create did nothing.
          expect(client.partial()).toBe('');
          const name = creates[index]?.at(-1);
          if (name !== undefined) expect(stored.has(name), `${name} was created`).toBe(false);
        }
        // Every create answered was stored.
        for (const name of creates[index]?.slice(0, client.answers.length) ?? [])
          expect(stored.has(name)).toBe(true);
      }
    },
    timeouts.server,
  );
});
