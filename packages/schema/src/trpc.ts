// `@petstore/schema/trpc`: the tRPC router's type, derived from the contract. The tRPC client in
// `@petstore/client` is typed by it, and the service's router must be of it (apps/api `createAppRouter(...):
// AppRouter`), so client and server both depend on the contract and never on each other (oRPC's
// `implement(contract)`). Types only: this module has no code, and `@trpc/server` is needed for its types alone.

// The public entry by the package's own name, not its files: the contract's internals may move without touching
// this one, and the published declarations import the entry as the consumer resolves it (ESM or CommonJS) instead
// of a chunk shared by both entries.
import type { ApiError, Contract, OperationId, OperationInput, OperationOutput } from '@petstore/schema';
import type {
  TRPC_ERROR_CODE_KEY,
  TRPC_ERROR_CODE_NUMBER,
  TRPCBuiltRouter,
  TRPCDecorateCreateRouterOptions,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPCSubscriptionProcedure,
} from '@trpc/server';

/** One procedure's types: the contract's input (as callers may write it) and output; no metadata. */
type OperationProcedure<Id extends OperationId> = {
  input: OperationInput<Id>;
  output: OperationOutput<Id>;
  meta: object;
};

/**
 * A subscription's types: each event `tracked(id, event)`, so tRPC's client resumes from the last id it received
 * (sent back as `lastEventId`) after a reconnect.
 */
type SubscriptionProcedure<Id extends OperationId> = {
  input: OperationInput<Id>;
  output: OperationOutput<Id> extends AsyncIterable<infer Event>
    ? AsyncIterable<{ id: string; data: Event }, void, unknown>
    : never;
  meta: object;
};

/** A query, a mutation or a subscription, as the operation's `trpc.kind` says. */
type ProcedureOf<Id extends OperationId> = Contract[Id]['trpc']['kind'] extends 'mutation'
  ? TRPCMutationProcedure<OperationProcedure<Id>>
  : Contract[Id]['trpc']['kind'] extends 'subscription'
    ? TRPCSubscriptionProcedure<SubscriptionProcedure<Id>>
    : TRPCQueryProcedure<OperationProcedure<Id>>;

type RouterNames = Contract[OperationId]['trpc']['router'];

/** `{ pets: { list: <query>, create: <mutation>, get: <query>, ... } }`, typed from the contract. */
export type AppRouterRecord = {
  [R in RouterNames]: {
    [Id in OperationId as Contract[Id]['trpc']['router'] extends R
      ? Contract[Id]['trpc']['procedure']
      : never]: ProcedureOf<Id>;
  };
};

/**
 * What each procedure is called with on the server (tRPC's `ctx`). Clients never send it; it is part of the
 * router's type because tRPC's server-side `createCaller` takes it.
 */
export interface AppRouterContext {
  /** Who is calling, by key: `key:<digest>` (the same on every instance), never the key. */
  caller: { subject: string };
  /** Called with any error that is not the caller's fault, for the logs. */
  onInternalError: (error: unknown, path: string | undefined) => void;
  /** Drops the HTTP connection of a subscription whose client stopped reading (absent outside HTTP). */
  closeConnection?: () => void;
}

/**
 * A failed call as tRPC sends it: tRPC's own fields (no stack, ever) and, in `data.error`, the same `Error` body
 * REST would have sent for the same failure.
 */
export interface AppRouterErrorShape {
  code: TRPC_ERROR_CODE_NUMBER;
  message: string;
  data: {
    code: TRPC_ERROR_CODE_KEY;
    httpStatus: number;
    path?: string;
    error: ApiError;
  };
}

/** The router's root types: values travel through superjson (`bigint` stays `bigint`), no metadata. */
export interface AppRouterRootTypes {
  ctx: AppRouterContext;
  meta: object;
  errorShape: AppRouterErrorShape;
  transformer: true;
}

/** The service's tRPC router, as `t.router(record)` builds it: what `createTRPCClient<AppRouter>` is typed by. */
export type AppRouter = TRPCBuiltRouter<AppRouterRootTypes, TRPCDecorateCreateRouterOptions<AppRouterRecord>>;
