// The change feed through both clients against the real API, on PostgreSQL and PGlite: the REST client's
// followPetEvents and the tRPC client's pets.events subscription each receive every created pet once, in order,
// and resume after a connection the test cuts (a TCP proxy in front of the API, as a load balancer that drops).

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import {
  createRestClient,
  createTrpcClient,
  isPetStoreApiError,
  type PetEvent,
  PetStoreApiError,
  type RestClient,
} from '@petstore/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS, startTestServer, TEST_API_KEY, type TestServer } from '../support/test-server.js';

/** A TCP proxy in front of `target` whose every open connection `cut()` destroys, as a dropped network would. */
async function startCuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(socket);
      socket.pipe(other);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    cut() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      this.cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const failureOf = async (events: AsyncIterable<unknown>) => {
  try {
    for await (const _ of events) return expect.unreachable('no event was expected');
  } catch (error) {
    return error;
  }
  return expect.unreachable('the iterator should have failed');
};

describe.each(DATABASE_KINDS)('the change feed through the clients, API on %s', (kind) => {
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let rest: RestClient;
  /** The REST client through the proxy the test cuts. */
  let cutRest: RestClient;

  beforeAll(async () => {
    server = await startTestServer(kind, 'feed-clients');
    proxy = await startCuttableProxy(new URL(server.baseUrl));
    rest = createRestClient({ baseUrl: server.baseUrl, apiKey: TEST_API_KEY });
    cutRest = createRestClient({ baseUrl: proxy.baseUrl, apiKey: TEST_API_KEY });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  /** Creates `count` pets named `<prefix> <n>` one after the other; returns them in order. */
  const createPets = async (prefix: string, count: number) => {
    const pets = [];
    for (let n = 1; n <= count; n++)
      pets.push(await rest.createPet({ name: `${prefix} ${n}`, categoryId: 7 }));
    return pets;
  };

  it('REST: followPetEvents yields every created pet once, in order, and resumes after a cut connection', async () => {
    const before = await createPets('Before', 3);
    const events: PetEvent[] = [];
    const iterator = cutRest.followPetEvents({ since: 0 })[Symbol.asyncIterator]();
    const next = async () => {
      const result = await iterator.next();
      if (result.done) throw new Error('the feed ended');
      events.push(result.value);
    };
    for (let n = 0; n < 3; n++) await next();
    proxy.cut();
    const after = await createPets('After', 5);
    for (let n = 0; n < 5; n++) await next();
    await iterator.return?.();

    expect(events.map((event) => event.pet)).toEqual([...before, ...after]);
    expect(events.every((event) => event.kind === 'pet.created')).toBe(true);
    const ids = events.map((event) => event.id);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('REST: after a given event id, a follower gets only what came after; the status filter holds', async () => {
    const marker = await rest.createPet({ name: 'Marker', categoryId: 1 });
    const position = await firstEvent(
      rest.followPetEvents({ since: 0 }),
      (event) => event.pet.id === marker.id,
    );
    const sold = await rest.createPet({ name: 'Sold one', categoryId: 1, status: 'sold' });
    await rest.createPet({ name: 'Available one', categoryId: 1, status: 'available' });
    const first = await firstEvent(rest.followPetEvents({ since: position.id, status: 'sold' }), () => true);
    expect(first.pet).toEqual(sold);
  });

  it('REST: a wrong key is 401 and a bad position is 400, as typed errors', async () => {
    const wrong = createRestClient({ baseUrl: server.baseUrl, apiKey: 'wrong-key-0123456789abcdef' });
    expect(await failureOf(wrong.followPetEvents())).toMatchObject({
      kind: 'api',
      status: 401,
      code: 'unauthorized',
    });
    const bad = await failureOf(rest.followPetEvents({ since: -1 }));
    expect(bad).toBeInstanceOf(PetStoreApiError);
    expect(isPetStoreApiError(bad, 'streamPetEvents') && bad.code).toBe('validation_failed');
  });

  it('tRPC: pets.events yields tracked { id, data } and resumes after a cut connection with lastEventId', async () => {
    const trpc = createTrpcClient({ url: `${proxy.baseUrl}/trpc`, apiKey: TEST_API_KEY });
    const seen: { id: string; data: PetEvent }[] = [];
    let cut = false;
    const created: unknown[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const subscription = trpc.pets.events.subscribe(
        { since: 0n },
        {
          onData: (value) => {
            // tRPC hands onData { id, data } for a tracked() event (see @petstore/schema/trpc).
            seen.push(value as unknown as { id: string; data: PetEvent });
            if (!cut && seen.length === 2) {
              cut = true;
              proxy.cut();
              void createPets('Through tRPC', 2).then((pets) => created.push(...pets), reject);
            }
            const last = seen.at(-1)?.data.pet.name;
            if (last === 'Through tRPC 2') {
              subscription.unsubscribe();
              resolve();
            }
          },
          onError: (error) => {
            subscription.unsubscribe();
            reject(error);
          },
        },
      );
    });
    await done;
    const all = await rest.listPets({ limit: 100 });
    expect(seen.map((event) => event.data.pet)).toEqual(all);
    expect(seen.map((event) => event.id)).toEqual(seen.map((event) => String(event.data.id)));
    expect(created).toHaveLength(2);
  });

  it('tRPC: a subscription opened at a lastEventId resumes after a cut from the later id its EventSource sends', async () => {
    // The input keeps the id it was opened with; the EventSource's reconnect adds a later Last-Event-ID. The later
    // one wins (a reconnect only moves on); were any difference refused, this reconnect would end the subscription.
    const [opened] = await createPets('Opened at', 1);
    const position = await firstEvent(
      rest.followPetEvents({ since: 0 }),
      (event) => event.pet.id === opened?.id,
    );
    const before = await createPets('Before the cut', 2);
    const trpc = createTrpcClient({ url: `${proxy.baseUrl}/trpc`, apiKey: TEST_API_KEY });
    const seen: PetEvent[] = [];
    let cut = false;
    const after: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = trpc.pets.events.subscribe(
        { lastEventId: String(position.id) },
        {
          onData: (value) => {
            seen.push((value as unknown as { data: PetEvent }).data);
            if (!cut && seen.length === 2) {
              cut = true;
              proxy.cut();
              void createPets('After the cut', 2).then((pets) => after.push(...pets), reject);
            }
            if (seen.at(-1)?.pet.name === 'After the cut 2') {
              subscription.unsubscribe();
              resolve();
            }
          },
          onError: (error) => {
            subscription.unsubscribe();
            reject(error);
          },
        },
      );
    });
    expect(seen.map((event) => event.pet)).toEqual([...before, ...after]);
  });
});

/** The first event of a follower that `matches` (then the follower is closed). */
async function firstEvent(events: AsyncIterable<PetEvent>, matches: (event: PetEvent) => boolean) {
  for await (const event of events) if (matches(event)) return event;
  throw new Error('the feed ended');
}
