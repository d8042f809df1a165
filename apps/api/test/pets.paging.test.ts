// Paging listPets: keyset cursors over REST (`Link: rel="next"`) and tRPC (`pets.page`), on both databases.

import { type Pet, PetsSchema } from '@petstore/schema';
import fc from 'fast-check';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { createPetsService } from '../src/pets/pets.service.js';
import { sendRaw } from './reliability/raw-http.js';
import { forgeCursor } from './support/forged-cursor.js';
import { call, expectError, type Reply, rawCall } from './support/http.js';
import { DATABASE_KINDS, startTestServer, type TestServer } from './support/test-server.js';

// Some tests start servers of their own: the timeout says so.
vi.setConfig({ testTimeout: timeouts.server });

/** The cursor of a `Link: <...>; rel="next"` header, and the URL itself. */
function nextOf(reply: Reply): { url: string; cursor: string } | undefined {
  const link = reply.headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  const url = (match as RegExpExecArray)[1] as string;
  return { url, cursor: new URL(url).searchParams.get('cursor') as string };
}

describe.each(DATABASE_KINDS)('paging listPets on %s', (kind) => {
  let server: TestServer;
  let base: string;
  /** The 250 `available` pets inserted first, interleaved with `sold` ones, by id. */
  let available: bigint[];

  beforeAll(async () => {
    server = await startTestServer(kind, 'paging');
    base = server.baseUrl;
    await server.database.sql.rows(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'pet ' || n, n, (CASE WHEN n % 3 = 0 THEN 'sold' ELSE 'available' END)::pet_status
       FROM generate_series(1, 375) AS n`,
      [],
    );
    const rows = await server.database.sql.rows(
      `SELECT id FROM pets WHERE status = 'available' ORDER BY id`,
      [],
    );
    available = rows.map((row) => row.id as bigint);
    expect(available).toHaveLength(250);
  });
  afterAll(async () => {
    await server?.close();
  });

  // The service reads its rows by column name as PetRecord (Prisma's Pet model fields): what it makes of them is
  // what the Prisma client's own read of the same pets gives, field for field (a NULL status left out).
  it("reads the pets the Prisma client reads: the same fields, Prisma's types", async () => {
    const pets = await createPetsService(server.database.sql).listPets({ limit: 300 });
    const stock = await server.database.prisma.pet.findMany({
      select: { id: true, name: true, categoryId: true, status: true },
      orderBy: { id: 'asc' },
      take: 300,
    });
    expect(pets).toStrictEqual(
      stock.map(({ status, ...pet }) => (status === null ? pet : { ...pet, status })),
    );
  });

  /** Follows `rel="next"` from `first` to the end over REST; returns the pages' ids. */
  async function walkRest(first: string): Promise<{ pages: bigint[][]; replies: Reply[] }> {
    const pages: bigint[][] = [];
    const replies: Reply[] = [];
    let path: string | undefined = first;
    while (path !== undefined) {
      const reply = await call(base, path);
      expect(reply.status, reply.text).toBe(200);
      replies.push(reply);
      pages.push(PetsSchema.parse(reply.body).map((pet) => pet.id));
      const next = nextOf(reply);
      path = next === undefined ? undefined : next.url.slice(base.length);
      expect(pages.length).toBeLessThan(100);
    }
    return { pages, replies };
  }

  async function trpcPage(input: object): Promise<Reply> {
    const text = encodeURIComponent(JSON.stringify(superjson.serialize(input)));
    return rawCall(base, `/trpc/pets.page?input=${text}`, {
      headers: { authorization: 'Bearer test-key-0123456789abcdef' },
    });
  }
  const trpcData = (reply: Reply) =>
    superjson.deserialize<{ items: Pet[]; nextCursor: string | null }>(JSON.parse(reply.text).result.data);
  const trpcError = (reply: Reply) =>
    superjson.deserialize<{ data: { error: { code: string; message: string; status: number } } }>(
      JSON.parse(reply.text).error,
    ).data.error;

  it('REST: following rel="next" from ?status=available&limit=100 gives all 250 exactly once, in three pages', async () => {
    const { pages, replies } = await walkRest('/pets?status=available&limit=100');
    expect(pages.map((page) => page.length)).toEqual([100, 100, 50]);
    expect(pages.flat()).toEqual(available);
    const [first] = replies;
    expect(nextOf(first as Reply)?.url).toMatch(
      new RegExp(
        `^${base.replace(/[.]/g, '\\.')}/pets\\?limit=100&status=available&cursor=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`,
      ),
    );
    expect(replies.at(-1)?.headers.get('link')).toBeNull();
  });

  it('REST: without a status filter the walk covers every pet; a client that never pages sees the first 20', async () => {
    const { pages } = await walkRest('/pets?limit=100');
    expect(pages.map((page) => page.length)).toEqual([100, 100, 100, 75]);
    const all = pages.flat();
    expect(new Set(all).size).toBe(375);
    expect([...all].sort((a, b) => (a < b ? -1 : 1))).toEqual(all);
    const plain = await call(base, '/pets');
    expect(PetsSchema.parse(plain.body).map((pet) => pet.id)).toEqual(all.slice(0, 20));
  });

  it('REST: no Link when everything fits in the page', async () => {
    const reply = await call(base, '/pets?status=pending&limit=5');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
    expect(reply.headers.get('link')).toBeNull();
    // Exactly a full last page: no Link either (one row more was asked for, none came).
    const last = await call(
      base,
      `/pets?status=available&limit=50&cursor=${encodeURIComponent(forgeCursor(JSON.stringify({ v: 1, after: String(available[199]), status: 'available' })))}`,
    );
    expect(PetsSchema.parse(last.body)).toHaveLength(50);
    expect(last.headers.get('link')).toBeNull();
  });

  it('REST: a cursor is not bound to limit (the page size may change mid-walk)', async () => {
    const first = await call(base, '/pets?status=available&limit=10');
    const cursor = nextOf(first)?.cursor as string;
    const second = await call(base, `/pets?status=available&limit=30&cursor=${cursor}`);
    expect(PetsSchema.parse(second.body).map((pet) => pet.id)).toEqual(available.slice(10, 40));
    expect(nextOf(second)?.url).toContain('limit=30&status=available&cursor=');
  });

  it('tRPC: pets.page walks all 250 in three pages with nextCursor, null on the last', async () => {
    const pages: bigint[][] = [];
    let cursor: string | undefined;
    do {
      const reply = await trpcPage({ status: 'available', limit: 100, cursor });
      expect(reply.status, reply.text).toBe(200);
      const page = trpcData(reply);
      pages.push(page.items.map((pet) => BigInt(pet.id)));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(pages.map((page) => page.length)).toEqual([100, 100, 50]);
    expect(pages.flat()).toEqual(available);
  });

  it("tRPC: pets.page takes the direction TanStack Query's infiniteQueryOptions sends, forward only", async () => {
    const first = trpcData(await trpcPage({ status: 'available', limit: 100, direction: 'forward' }));
    expect(first.items.map((pet) => BigInt(pet.id))).toEqual(available.slice(0, 100));
    const reply = await trpcPage({ limit: 1, cursor: first.nextCursor, direction: 'backward' });
    expect(reply.status).toBe(400);
    expect(trpcError(reply)).toEqual({
      code: 'validation_failed',
      message: 'direction: must be forward (pages only go forward)',
      status: 400,
    });
  });

  it('cursors are interchangeable between REST and tRPC', async () => {
    const rest = nextOf(await call(base, '/pets?status=available&limit=100'))?.cursor as string;
    const viaTrpc = trpcData(await trpcPage({ status: 'available', limit: 100, cursor: rest }));
    expect(viaTrpc.items.map((pet) => BigInt(pet.id))).toEqual(available.slice(100, 200));
    const trpcCursor = viaTrpc.nextCursor as string;
    const viaRest = await call(base, `/pets?status=available&limit=100&cursor=${trpcCursor}`);
    expect(PetsSchema.parse(viaRest.body).map((pet) => pet.id)).toEqual(available.slice(200));
    expect(viaRest.headers.get('link')).toBeNull();
    // pets.list stays a bare array, and pets.page's first page is listPets' page.
    const first = trpcData(await trpcPage({ status: 'available', limit: 100 }));
    expect(first.nextCursor).toBe(rest);
  });

  it('a walk during concurrent inserts returns every pet that existed at the start exactly once, in id order', async () => {
    const before = await walkRest('/pets?status=available&limit=100');
    const existing = before.pages.flat();
    let inserting = true;
    const inserted: bigint[] = [];
    const inserter = (async () => {
      while (inserting) {
        const reply = await call(base, '/pets', {
          method: 'POST',
          body: JSON.stringify({ name: 'newcomer', categoryId: 1, status: 'available' }),
        });
        expect(reply.status).toBe(201);
        inserted.push(BigInt((reply.body as { id: number | bigint }).id));
      }
    })();
    try {
      const walked: bigint[] = [];
      let path: string | undefined = '/pets?status=available&limit=25';
      while (path !== undefined) {
        const reply = await call(base, path);
        walked.push(...PetsSchema.parse(reply.body).map((pet) => pet.id));
        // Give the inserter a turn between pages.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const next = nextOf(reply);
        path = next === undefined ? undefined : next.url.slice(base.length);
      }
      inserting = false;
      await inserter;
      expect(inserted.length).toBeGreaterThan(0);
      expect(new Set(walked).size).toBe(walked.length);
      expect([...walked].sort((a, b) => (a < b ? -1 : 1))).toEqual(walked);
      expect(walked.slice(0, existing.length)).toEqual(existing);
      for (const id of walked.slice(existing.length)) expect(inserted).toContain(id);
    } finally {
      inserting = false;
      await inserter;
    }
  });

  describe('bad cursors are 400 validation_failed on both transports', () => {
    const good = () =>
      forgeCursor(JSON.stringify({ v: 1, after: String(available[99]), status: 'available' }));
    const cases: [string, () => string, RegExp][] = [
      [
        'tampered payload',
        () => {
          const [, sum] = good().split('.');
          const payload = JSON.stringify({ v: 1, after: '1', status: 'available' });
          return `${Buffer.from(payload).toString('base64url')}.${sum}`;
        },
        /checksum/,
      ],
      [
        'wrong checksum',
        () => {
          const [body, sum] = good().split('.') as [string, string];
          return `${body}.${sum.startsWith('A') ? 'B' : 'A'}${sum.slice(1)}`;
        },
        /checksum/,
      ],
      ['truncated', () => good().slice(0, -4), /checksum/],
      ['no checksum', () => good().split('.')[0] as string, /not a cursor/],
      [
        'made for another status',
        () => forgeCursor(JSON.stringify({ v: 1, after: '5', status: 'sold' })),
        /status=sold/,
      ],
      [
        'made for no status filter',
        () => forgeCursor(JSON.stringify({ v: 1, after: '5' })),
        /no status filter/,
      ],
      [
        'another version',
        () => forgeCursor(JSON.stringify({ v: 2, after: '5', status: 'available' })),
        /version/,
      ],
      [
        'an id that is no int64',
        () => forgeCursor(JSON.stringify({ v: 1, after: '9223372036854775808', status: 'available' })),
        /not a cursor/,
      ],
      ['not JSON', () => forgeCursor('{"v":1,'), /not a cursor/],
      ['garbage', () => 'hello world!', /not a cursor/],
      ['too long', () => 'a'.repeat(513), /512/],
      ['empty', () => '', /empty/],
    ];

    it.each(cases)('%s', async (_name, make, message) => {
      const cursor = make();
      const rest = await call(base, `/pets?status=available&limit=10&cursor=${encodeURIComponent(cursor)}`);
      expectError(rest, 400, 'validation_failed');
      expect((rest.body as { message: string }).message).toMatch(/^cursor: /);
      expect((rest.body as { message: string }).message).toMatch(message);
      const trpc = await trpcPage({ status: 'available', limit: 10, cursor });
      expect(trpc.status).toBe(400);
      expect(trpcError(trpc)).toMatchObject({
        code: 'validation_failed',
        status: 400,
        message: expect.stringMatching(/^cursor: /),
      });
    });

    it('a cursor given twice is refused', async () => {
      expectError(await call(base, `/pets?cursor=${good()}&cursor=${good()}`), 400, 'validation_failed');
    });

    it('random cursors never give a 5xx (fuzz)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string({ maxLength: 600 }),
            fc
              .base64String({ maxLength: 80 })
              .map((text) => text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, '')),
            fc
              .tuple(fc.base64String({ maxLength: 60 }), fc.base64String({ maxLength: 20 }))
              .map(([a, b]) => `${a}.${b}`),
            fc.json().map((json) => forgeCursor(json)),
          ),
          fc.constantFrom(undefined, 'available', 'sold'),
          async (cursor, status) => {
            const query = `cursor=${encodeURIComponent(cursor)}${status === undefined ? '' : `&status=${status}`}`;
            const rest = await call(base, `/pets?${query}`);
            expect(rest.status).toBeLessThan(500);
            if (rest.status !== 200) expectError(rest, 400, 'validation_failed');
            const trpc = await trpcPage({ cursor, status });
            expect(trpc.status).toBeLessThan(500);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});

describe('Link URLs', () => {
  it('start with the environment public URL when one is configured, else the validated Host', async () => {
    const server = await startTestServer('pglite', 'paging-links', {
      publicBaseUrl: 'https://api.example.com/v1',
    });
    const local = await startTestServer('pglite', 'paging-links-host');
    try {
      for (const target of [server, local]) {
        await target.database.sql.rows(
          `INSERT INTO pets (name, category_id) SELECT 'p', n FROM generate_series(1, 3) AS n`,
          [],
        );
      }
      // createPet's Location under the public URL too (a gateway's path prefix would be lost from `/v1/pets/1`).
      const created = await call(server.baseUrl, '/pets', {
        method: 'POST',
        body: '{"name":"L","categoryId":1}',
      });
      const { id } = created.body as { id: bigint };
      expect(created.headers.get('location')).toBe(`https://api.example.com/v1/pets/${id}`);
      // So is getPet's successor, on every answer of it: REST's, a 405 of its path, tRPC's.
      const successor = '<https://api.example.com/v1/pets>; rel="successor-version"';
      for (const [path, method] of [
        [`/pets/${id}`, 'GET'],
        [`/pets/${id}`, 'DELETE'],
        [
          `/trpc/pets.get?input=${encodeURIComponent(`{"json":{"petId":"${id}"},"meta":{"values":{"petId":["bigint"]}}}`)}`,
          'GET',
        ],
      ] as const) {
        const answer = await call(server.baseUrl, path, { method });
        expect(answer.headers.get('link'), `${method} ${path}`).toBe(successor);
      }
      const configured = await call(server.baseUrl, '/pets?limit=1');
      expect(configured.headers.get('link')).toMatch(
        /^<https:\/\/api\.example\.com\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/,
      );
      const named = await rawCall(local.baseUrl, '/pets?limit=1', {
        headers: { authorization: 'Bearer test-key-0123456789abcdef', host: 'pets.internal:8080' },
      });
      expect(named.headers.get('link')).toMatch(/^<http:\/\/pets\.internal:8080\/v1\/pets\?limit=1&cursor=/);
      // A Host that is not host[:port] is refused by the edge (RFC 9112 section 3.2), never echoed into a URL.
      // (A raw socket: the edge's malformed_request is a server-level answer, not one of listPets' documented codes.)
      const odd = await sendRaw('127.0.0.1', Number(new URL(local.baseUrl).port), {
        method: 'GET',
        target: '/v1/pets?limit=1',
        headers: [
          ['Authorization', 'Bearer test-key-0123456789abcdef'],
          ['Host', 'evil.example/x?y='],
        ],
      });
      expect(odd.kind === 'response' && odd.response.status).toBe(400);
      expect(odd.kind === 'response' && odd.response.headers.get('link')).toBeUndefined();
      // A valid Host that no URL can hold (a port over 65535 is no port: RFC 9110's grammar has any digits) falls
      // back to the address.
      for (const host of ['a:99999', 'a:65536', '[::1]:70000']) {
        const unechoed = await rawCall(local.baseUrl, '/pets?limit=1', {
          headers: { authorization: 'Bearer test-key-0123456789abcdef', host },
        });
        expect(unechoed.headers.get('link'), host).toMatch(
          new RegExp(`^<${local.baseUrl.replace(/[.]/g, '\\.')}/pets\\?limit=1&cursor=`),
        );
      }
      // Every Host the edge admits (a reg-name of RFC 3986's characters, percent-encodings included, and a port) is
      // echoed as a URL reads it, or is the address when it is no URL's host: the link is where a client's URL goes.
      const regName = fc
        .array(
          fc.oneof(
            fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;="),
            fc.integer({ min: 0x21, max: 0x7e }).map((byte) => `%${byte.toString(16).padStart(2, '0')}`),
          ),
          { minLength: 1, maxLength: 12 },
        )
        .map((parts) => parts.join(''));
      const hosts = fc
        .tuple(regName, fc.option(fc.integer({ min: 0, max: 99999 })))
        .map(([name, port]) => (port === null ? name : `${name}:${port}`));
      for (const host of fc.sample(hosts, { numRuns: 40, seed: 35 })) {
        const answer = await rawCall(local.baseUrl, '/pets?limit=1', {
          headers: { authorization: 'Bearer test-key-0123456789abcdef', host },
        });
        expect(answer.status, host).toBe(200);
        const url = URL.parse(`http://${host}`);
        const base =
          url !== null && url.href === `http://${url.host}/` ? `http://${url.host}/v1` : local.baseUrl;
        expect(answer.headers.get('link')?.startsWith(`<${base}/pets?limit=1&cursor=`), host).toBe(true);
      }
      // A percent-encoded name, as a URL reads it.
      const encoded = await rawCall(local.baseUrl, '/pets?limit=1', {
        headers: { authorization: 'Bearer test-key-0123456789abcdef', host: 'a%41:8080' },
      });
      expect(encoded.headers.get('link')).toMatch(/^<http:\/\/aa:8080\/v1\/pets\?limit=1&cursor=/);
      // An underscore is in no DNS name but in reg-names (RFC 3986) and Compose service names: echoed.
      const compose = await rawCall(local.baseUrl, '/pets?limit=1', {
        headers: { authorization: 'Bearer test-key-0123456789abcdef', host: 'pet_store:3000' },
      });
      expect(compose.headers.get('link')).toMatch(/^<http:\/\/pet_store:3000\/v1\/pets\?limit=1&cursor=/);
      const highest = await rawCall(local.baseUrl, '/pets?limit=1', {
        headers: { authorization: 'Bearer test-key-0123456789abcdef', host: 'a:65535' },
      });
      expect(highest.headers.get('link')).toMatch(/^<http:\/\/a:65535\/v1\/pets/);
    } finally {
      await server.close();
      await local.close();
    }
  });
});
