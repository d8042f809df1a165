import { contract as defaultContract, type OperationContract, type OperationId } from '@petstore/schema';
import type { AppRouter, AppRouterRecord } from '@petstore/schema/trpc';
import { tracked } from '@trpc/server';
import { serviceUnavailable } from '../errors.js';
import type { OperationContext, OperationHandlers } from '../operations.js';
import { createTrpcRoot, type TrpcContext, throwTrpcError } from './trpc.js';

// The tRPC router, built from the contract (one procedure per operation, over the same handlers as REST). Its type
// is the contract's (`@petstore/schema/trpc`): the record built in a loop is asserted, the root config (context,
// error shape, transformer) is checked by `createAppRouter`'s return type.

type Handle = (input: unknown, context: OperationContext) => Promise<unknown>;
type CallOptions = { input: unknown; ctx: TrpcContext; signal?: AbortSignal };

/**
 * A streaming operation as a subscription over SSE: each event `tracked(id, event)`, so tRPC's client sends the
 * last id back as `lastEventId` when it reconnects and the operation resumes after it. The operation is called
 * before the events are returned (tRPC awaits the resolver, then writes the stream's head): "from now" is fixed
 * before the client sees the 200, as on REST, and a refusal comes as the stream's one error event.
 */
function subscribe(handle: Handle) {
  return async ({ input, ctx, signal }: CallOptions) => {
    const stop = new AbortController();
    if (signal?.aborted === true) stop.abort();
    else signal?.addEventListener('abort', () => stop.abort(), { once: true });
    const events = (await handle(input, {
      caller: ctx.caller,
      connection: {
        signal: stop.signal,
        close: () => ctx.closeConnection?.(),
        lastEventIds: ctx.lastEventIds,
      },
    }).catch(throwTrpcError)) as AsyncIterable<{ id: bigint }>;
    return (async function* () {
      try {
        for await (const event of events) yield tracked(String(event.id), event);
      } catch (error) {
        throwTrpcError(error);
      } finally {
        stop.abort();
      }
      // The feed ended and the client did not go: this instance is shutting down. A retryable error, so that tRPC's
      // client reconnects (to another instance) with its last id; a plain end would tell it the stream is over.
      if (signal?.aborted !== true) {
        throwTrpcError(
          serviceUnavailable('this server is shutting down: reconnect to resume from your last event'),
        );
      }
    })();
  };
}

export interface AppRouterOptions {
  /** The subscriptions' keep-alive: EVENTS_KEEPALIVE_MS, as on REST (trpc.ts createTrpcRoot). */
  keepAliveMs: number;
  contract?: Readonly<Record<string, OperationContract>> | undefined;
}

/**
 * The tRPC router over the operation handlers, one procedure per operation of `contract`. A test contract with an
 * extra operation gets its procedure too, untyped by AppRouter.
 */
export function createAppRouter(
  handlers: OperationHandlers,
  { keepAliveMs, contract = defaultContract }: AppRouterOptions,
): AppRouter {
  const { procedure, router } = createTrpcRoot(keepAliveMs);
  const call = handlers as unknown as Record<OperationId, Handle>;
  const record: Record<string, Record<string, unknown>> = {};
  for (const op of Object.values(contract)) {
    const handle = call[op.id as OperationId];
    // No `.output()`: validating 20 pets through zod cost a third of a tRPC list call, and the service's type is
    // the contract's already. No middleware: errors are mapped in the resolver (throwTrpcError), and anything added
    // sends the calls to tRPC's own handler (plainProcedure). The stability level as meta adds no middleware.
    const built = procedure.meta({ stability: op.stability }).input(op.input);
    const resolve = ({ input, ctx }: CallOptions) =>
      handle(input, { caller: ctx.caller }).catch(throwTrpcError);
    const group = record[op.trpc.router] ?? {};
    group[op.trpc.procedure] =
      op.trpc.kind === 'subscription'
        ? built.subscription(subscribe(handle))
        : op.trpc.kind === 'mutation'
          ? built.mutation(resolve)
          : built.query(resolve);
    record[op.trpc.router] = group;
  }
  return router(record as unknown as AppRouterRecord);
}

export type { AppRouter };
