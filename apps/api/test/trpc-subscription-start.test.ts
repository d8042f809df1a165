// Where a tRPC subscription's "from now" is: the feed is followed before the stream's head is written, as on REST,
// so a client that creates a pet once it has the 200 sees that pet (docs/interface-decisions.md, the change feed).
// The feed here is a stand-in that, while a follow is pending, records whether the head has gone out, and holds
// the follow until the test lets it go.
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import superjson from 'superjson';
import { afterEach, describe, expect, it } from 'vitest';
import type { Following, PetFeed } from '../src/events/pet-feed.js';
import { openMemoryApp } from './support/memory-database.js';
import { TEST_API_KEY } from './support/test-server.js';

/** A follower with no events that ends when its signal aborts. */
function idleFollowing(signal: AbortSignal): Following {
  const ended = new Promise<IteratorResult<never>>((resolve) =>
    signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true }),
  );
  return {
    position: () => 0n,
    next: () => ended,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

describe('a tRPC subscription, from now', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('follows the feed before it writes the head: the 200 comes only once "now" is fixed', async () => {
    let response: ServerResponse | undefined;
    const followed = Promise.withResolvers<{ headersSent: boolean }>();
    const released = Promise.withResolvers<void>();
    const feed: Pick<PetFeed, 'follow' | 'wake'> = {
      async follow(options) {
        // Turns of the event loop in which a head written regardless of the follow would go out.
        for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
        followed.resolve({ headersSent: response?.headersSent ?? true });
        await released.promise;
        return idleFollowing(options.signal);
      },
      wake() {},
    };
    const { database, app } = await openMemoryApp({ petFeed: feed });
    cleanups.push(() => database.close());
    // The app's answer to the one request, seen from outside the app.
    const outer = express();
    outer.use((_req, res, next) => {
      response = res;
      next();
    });
    outer.use(app);
    const server = await new Promise<ReturnType<typeof outer.listen>>((resolve) => {
      const listening = outer.listen(0, '127.0.0.1', () => resolve(listening));
    });
    cleanups.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    const { port } = server.address() as AddressInfo;
    const input = encodeURIComponent(JSON.stringify(superjson.serialize({})));
    const answer = fetch(`http://127.0.0.1:${port}/v1/trpc/pets.events?input=${input}`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}`, accept: 'text/event-stream' },
      signal: stop.signal,
    });
    expect(await followed.promise).toEqual({ headersSent: false });
    released.resolve();
    const head = await answer;
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});
