import { contract, trpcPath } from '@petstore/schema';
import { describe, expect, it } from 'vitest';
import type { OperationHandlers } from '../operations.js';
import { createAppRouter } from './router.js';
import { createTrpcRoot } from './trpc.js';
import { routerProcedures } from './trpc-fast-path.js';

// No procedure runs here: the handlers are never called.
const handlers = {} as OperationHandlers;
/** Any keep-alive: nothing here goes over HTTP. */
const keepAliveMs = 15_000;
const { createCallerFactory } = createTrpcRoot(keepAliveMs);

describe('the tRPC router built from the contract', () => {
  it("carries each operation's stability level as its procedure's meta, and stays on the fast path", () => {
    const levels = { ...contract, pagePets: { ...contract.pagePets, stability: 'experimental' as const } };
    const { byPath, fast } = routerProcedures(createAppRouter(handlers, { keepAliveMs, contract: levels }));
    for (const op of Object.values(levels)) {
      expect(byPath.get(trpcPath(op))?._def.meta, op.id).toEqual({ stability: op.stability });
      // The meta adds no middleware: the procedure is still served without tRPC's handler. A subscription is
      // always tRPC's own (its SSE stream).
      expect(fast.get(trpcPath(op))?.meta, op.id).toEqual(
        op.trpc.kind === 'subscription' ? undefined : { stability: op.stability },
      );
    }
    expect(byPath.get('pets.page')?._def.meta).toEqual({ stability: 'experimental' });
  });
});

describe('the change feed as a subscription', () => {
  const caller = { subject: 'key:test' };
  const event = { id: 7n, kind: 'pet.created' as const, pet: { id: 3n, name: 'Rex', categoryId: 1n } };
  /** The router over a feed that yields `events` and then ends, as the feed does when its instance shuts down. */
  const subscribe = async (events: (typeof event)[], signal?: AbortSignal) => {
    const router = createAppRouter(
      {
        ...handlers,
        streamPetEvents: async () =>
          (async function* () {
            yield* events;
          })(),
      },
      { keepAliveMs },
    );
    const procedure = createCallerFactory(router)({ caller, onInternalError: () => {} }, { signal });
    return procedure.pets.events({});
  };

  it('yields each event tracked by its id, then, when the feed ends under a client that stayed, a retryable error', async () => {
    const received: unknown[] = [];
    const failure = await (async () => {
      for await (const each of await subscribe([event])) received.push(each);
    })().catch((error: unknown) => error);
    expect(received).toEqual([[String(event.id), event, expect.anything()]]);
    // SERVICE_UNAVAILABLE is one of the codes tRPC's client reconnects on (with its last id): a plain end would
    // tell it the stream is over for good, and a subscriber would stop at every deploy.
    expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('ends quietly when the client went', async () => {
    const gone = new AbortController();
    gone.abort();
    const received: unknown[] = [];
    for await (const each of await subscribe([], gone.signal)) received.push(each);
    expect(received).toEqual([]);
  });
});
