// The REST client's feed iterator against a local node:http server that misbehaves on purpose: it drops the
// connection in the middle of an event, sends keep-alive comments and CRLF, refuses with 503 and 429 before it
// serves, ends the stream, goes silent, and sends events twice. The real service is in apps/api/test/clients.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPetStoreApiError, PetStoreApiError } from './client-error.js';
import { createRestClient } from './rest-client.js';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
}

let server: Server;
let baseUrl: string;
/** Answers request number `n` (0 for the first) of the current test. */
let respond: (res: ServerResponse, n: number, req: IncomingMessage) => void;
let seen: Seen[];
/** Resolves when the server sees the client close request number n. */
let closed: Map<number, Promise<void>>;

beforeAll(async () => {
  server = createServer((req, res) => {
    const n = seen.length;
    seen.push({ url: req.url ?? '', headers: req.headers });
    closed.set(n, new Promise((resolve) => res.once('close', () => resolve())));
    respond(res, n, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
  closed = new Map();
});

const ABOVE_2_53 = 9007199254740993n;

/** One event as the service writes it, int64 values as exact JSON numbers. */
const event = (id: number | bigint, name = `Pet ${id}`, eol = '\n') =>
  [
    `id: ${id}`,
    'event: pet.created',
    `data: {"id":${id},"kind":"pet.created","pet":{"id":${id},"name":"${name}","categoryId":${ABOVE_2_53}}}`,
    '',
    '',
  ].join(eol);

const openStream = (res: ServerResponse, ...chunks: string[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  // A short reconnection time, so that the test's reconnects are quick.
  res.write('retry: 1\n\n');
  for (const chunk of chunks) res.write(chunk);
};

const errorReply = (
  res: ServerResponse,
  status: number,
  code: string,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ code, message: `${code} here`, status }));
};

const client = (options: { retries?: false; validateResponses?: boolean } = {}) =>
  createRestClient({
    baseUrl,
    apiKey: 'key-0123456789abcdef',
    retries: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });

/** The first `count` events the iterator yields (then it is closed, as a `break` does). */
async function take(iterable: AsyncIterable<{ id: bigint }>, count: number) {
  const events: { id: bigint }[] = [];
  if (count === 0) return events;
  for await (const item of iterable) {
    events.push(item);
    if (events.length === count) break;
  }
  return events;
}

const failureOf = async (iterable: AsyncIterable<unknown>, yielded: unknown[] = []) => {
  try {
    for await (const item of iterable) yielded.push(item);
  } catch (error) {
    expect(error).toBeInstanceOf(PetStoreApiError);
    return error as PetStoreApiError;
  }
  return expect.unreachable('the iterator should have failed');
};

describe('followPetEvents', () => {
  it('yields typed events with exact int64, sending the key, Accept and the query', async () => {
    respond = (res) => openStream(res, event(ABOVE_2_53, 'Rex'));
    const [first] = await take(client().followPetEvents({ status: 'available', since: 0n }), 1);
    expect(first).toEqual({
      id: ABOVE_2_53,
      kind: 'pet.created',
      pet: { id: ABOVE_2_53, name: 'Rex', categoryId: ABOVE_2_53 },
    });
    expect(seen).toEqual([
      {
        url: '/v1/pets/events?status=available&since=0',
        headers: expect.objectContaining({
          authorization: 'Bearer key-0123456789abcdef',
          accept: 'text/event-stream',
        }),
      },
    ]);
    expect(seen[0]?.headers['last-event-id']).toBeUndefined();
  });

  it('reads keep-alive comments, CRLF and events split across writes', async () => {
    respond = (res) => {
      openStream(res, ': keep-alive\r\n\r\n', event(1, 'One', '\r\n').slice(0, 20));
      setTimeout(
        () => res.write(`${event(1, 'One', '\r\n').slice(20)}: keep-alive\n\n${event(2, 'Two')}`),
        5,
      );
    };
    const events = await take(client().followPetEvents(), 2);
    expect(events.map((item) => item.id)).toEqual([1n, 2n]);
  });

  it('resumes after a connection dropped mid-event with Last-Event-ID: every event once, in order', async () => {
    respond = (res, n) => {
      if (n === 0) {
        // Two whole events and half of the third, then the connection is cut.
        openStream(res, event(1), event(2), event(3).slice(0, 30));
        setTimeout(() => res.socket?.destroy(), 5);
      } else if (n === 1) {
        // Resent from before Last-Event-ID (a duplicate the client must drop), then the stream just ends.
        openStream(res, event(2), event(3), event(4));
        res.end();
      } else {
        openStream(res, event(5));
      }
    };
    const events = await take(client().followPetEvents({ since: 0 }), 5);
    expect(events.map((item) => item.id)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(seen.map((request) => [request.url, request.headers['last-event-id']])).toEqual([
      ['/v1/pets/events?since=0', undefined],
      ['/v1/pets/events?since=0', '2'],
      ['/v1/pets/events?since=0', '4'],
    ]);
  });

  it('resumes from an id-only event: the position the service gives before any event', async () => {
    respond = (res, n) => {
      if (n === 0) {
        openStream(res, 'id: 40\n\n');
        res.end();
      } else openStream(res, event(41));
    };
    expect((await take(client().followPetEvents(), 1)).map((item) => item.id)).toEqual([41n]);
    expect(seen[1]?.headers['last-event-id']).toBe('40');
  });

  it('rides out a 503, then a 429 with Retry-After, then serves', async () => {
    respond = (res, n) => {
      if (n === 0) errorReply(res, 503, 'service_unavailable');
      else if (n === 1) errorReply(res, 429, 'rate_limited', { 'retry-after': '0' });
      else openStream(res, event(1));
    };
    expect((await take(client().followPetEvents(), 1)).map((item) => item.id)).toEqual([1n]);
    expect(seen).toHaveLength(3);
  });

  it('a silent connection is taken for dead after idleTimeoutMs and opened again', async () => {
    respond = (res, n) => {
      if (n === 0) openStream(res);
      else openStream(res, event(1));
    };
    const events = await take(client().followPetEvents({}, { idleTimeoutMs: 50 }), 1);
    expect(events.map((item) => item.id)).toEqual([1n]);
    await closed.get(0);
  });

  it.each([
    [401, 'unauthorized'],
    [400, 'validation_failed'],
    [410, 'events_expired'],
  ])('%i is a typed error at once, never retried', async (status, code) => {
    respond = (res) => errorReply(res, status, code);
    const error = await failureOf(client().followPetEvents({ since: 1 }));
    expect(error).toMatchObject({ kind: 'api', status, code, error: { code, status } });
    expect(isPetStoreApiError(error, 'streamPetEvents')).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('an error event ends the iterator with its Error body, after the events before it', async () => {
    respond = (res) => {
      openStream(
        res,
        event(1),
        'event: error\ndata: {"code":"events_expired","message":"gone","status":410}\n\n',
        event(2),
      );
      res.end();
    };
    const yielded: unknown[] = [];
    const error = await failureOf(client().followPetEvents(), yielded);
    expect(yielded).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'api', status: 410, code: 'events_expired' });
    if (isPetStoreApiError(error, 'streamPetEvents')) expect(error.code).toBe('events_expired');
    expect(seen).toHaveLength(1);
  });

  it('an event that breaks the schema is invalid_body; an unknown kind is passed over', async () => {
    respond = (res) =>
      openStream(
        res,
        'id: 1\nevent: pet.renamed\ndata: {"id":1}\n\n',
        'id: 2\nevent: pet.created\ndata: {"id":2,"kind":"pet.created","pet":{"id":2,"name":""}}\n\n',
      );
    const error = await failureOf(client().followPetEvents());
    expect(error.kind).toBe('invalid_body');
    expect(error.message).toContain('pet.name');
    expect(error.responseText).toContain('"id":2');
  });

  it('with validateResponses: false, events are trusted and their int64 fields are bigint', async () => {
    respond = (res) => openStream(res, event(ABOVE_2_53, 'Rex'));
    const [first] = await take(client({ validateResponses: false }).followPetEvents(), 1);
    expect(first).toEqual({
      id: ABOVE_2_53,
      kind: 'pet.created',
      pet: { id: ABOVE_2_53, name: 'Rex', categoryId: ABOVE_2_53 },
    });
  });

  it('break closes the connection', async () => {
    respond = (res) => openStream(res, event(1), event(2));
    await take(client().followPetEvents(), 1);
    await closed.get(0);
    expect(seen).toHaveLength(1);
  });

  it('the signal closes the connection and fails the iterator as aborted', async () => {
    respond = (res) => openStream(res, event(1));
    const controller = new AbortController();
    const yielded: unknown[] = [];
    const failure = failureOf(client().followPetEvents({}, { signal: controller.signal }), yielded);
    while (yielded.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await failure;
    expect(error).toMatchObject({ kind: 'network' });
    expect(error.message).toContain('was aborted');
    await closed.get(0);
  });

  it('with retries: false, a dropped stream is a network failure', async () => {
    respond = (res) => {
      openStream(res, event(1));
      res.end();
    };
    const yielded: unknown[] = [];
    const error = await failureOf(client({ retries: false }).followPetEvents(), yielded);
    expect(yielded).toHaveLength(1);
    expect(error).toMatchObject({ kind: 'network' });
    expect(seen).toHaveLength(1);
  });

  it('a 200 that is not an event stream is invalid_body', async () => {
    respond = (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    };
    expect(await failureOf(client().followPetEvents())).toMatchObject({ kind: 'invalid_body', status: 200 });
  });

  it('has no generic method for the stream operation', () => {
    expect('streamPetEvents' in client()).toBe(false);
    // @ts-expect-error: a stream is followed, not called
    expect(client().streamPetEvents).toBeUndefined();
  });
});
