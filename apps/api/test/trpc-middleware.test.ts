// The tRPC fast path cannot skip a rule: a procedure with anything beyond "input parser, then resolver" (a
// middleware, an output parser) is served by tRPC's own handler, so whatever was added runs.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCError } from '@trpc/server';
import express from 'express';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EVENTS_DEFAULTS } from '../src/config.js';
import type { AppRouter } from '../src/trpc/router.js';
import { trpcMiddleware } from '../src/trpc/trpc.express.js';
import { createTrpcRoot } from '../src/trpc/trpc.js';
import { plainProcedure, routerProcedures } from '../src/trpc/trpc-fast-path.js';

const { procedure, router } = createTrpcRoot(EVENTS_DEFAULTS.keepAliveMs);
const input = z.object({ n: z.number() });
let runs = 0;
const counted = procedure.use(async ({ next }) => {
  runs++;
  return next();
});
const testRouter = router({
  pets: {
    // A query with a middleware that counts its calls and refuses n = 13.
    list: counted
      .use(async ({ getRawInput, next }) => {
        if (((await getRawInput()) as { n?: number } | undefined)?.n === 13) {
          throw new TRPCError({ code: 'FORBIDDEN' });
        }
        return next();
      })
      .input(input)
      .query(({ input: given }) => ({ doubled: given.n * 2 })),
    // An output parser the resolver's answer fails.
    page: procedure
      .input(input)
      .output(z.object({ ok: z.literal(true) }))
      .query(() => ({ ok: false }) as never),
    // Plain: the fast path's.
    get: procedure.input(input).query(({ input: given }) => ({ same: given.n })),
    create: procedure.input(input).mutation(({ input: given }) => ({ made: given.n })),
  },
}) as unknown as AppRouter;

describe('a procedure the fast path does not implement', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use(
      '/v1/trpc',
      trpcMiddleware(testRouter, {
        guard: async () => ({ subject: 'test' }),
        onInternalError: () => {},
        fastPath: true,
      }),
    );
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/trpc`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const get = (path: string, n: number) =>
    fetch(`${base}/${path}?input=${encodeURIComponent(JSON.stringify(superjson.serialize({ n })))}`);

  it('is told apart from a plain one by its definition', () => {
    const { fast, byPath } = routerProcedures(testRouter);
    expect([...byPath.keys()].sort()).toEqual(['pets.create', 'pets.get', 'pets.list', 'pets.page']);
    expect([...fast.keys()].sort()).toEqual(['pets.create', 'pets.get']);
    expect(plainProcedure(byPath.get('pets.list') as never)).toBeUndefined();
  });

  it('runs its middleware on every call, single or batched', async () => {
    runs = 0;
    const single = await get('pets.list', 2);
    expect(single.status).toBe(200);
    expect(superjson.deserialize(((await single.json()) as { result: { data: never } }).result.data)).toEqual(
      { doubled: 4 },
    );
    expect(runs).toBe(1);
    const refused = await get('pets.list', 13);
    expect(refused.status).toBe(403);
    expect(runs).toBe(2);
    const batch = await fetch(
      `${base}/pets.get,pets.list?batch=1&input=${encodeURIComponent(
        JSON.stringify({ 0: superjson.serialize({ n: 1 }), 1: superjson.serialize({ n: 13 }) }),
      )}`,
    );
    expect(batch.status).toBe(207);
    expect(runs).toBe(3);
  });

  it('checks its output parser', async () => {
    const reply = await get('pets.page', 1);
    expect(reply.status).toBe(500);
  });

  it('serves a plain procedure next to them', async () => {
    const reply = await get('pets.get', 5);
    expect(reply.status).toBe(200);
    expect(superjson.deserialize(((await reply.json()) as { result: { data: never } }).result.data)).toEqual({
      same: 5,
    });
  });
});
