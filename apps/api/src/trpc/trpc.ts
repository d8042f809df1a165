import {
  API_BASE_PATH,
  type ApiError,
  ERROR_CODES,
  operations,
  TRPC_ENDPOINT,
  trpcPath,
} from '@petstore/schema';
import { describeIssues, inputSubject } from '@petstore/schema/internal';
import { initTRPC, TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { core } from 'zod/mini';
import { AppError, internalError, toAppError } from '../errors.js';
import type { Caller, SentPosition } from '../operations.js';
import { transformer } from './transformer.js';

/** Per-request context. The caller was admitted (API key, rate limit) once for the whole HTTP request. */
export interface TrpcContext {
  caller: Caller;
  /** Called with any error that is not the caller's fault, for the logs. */
  onInternalError: (error: unknown, path: string | undefined) => void;
  /** Drops the HTTP connection of a subscription whose client stopped reading (absent outside HTTP). */
  closeConnection?: () => void;
  /** A subscription's last event id as its EventSource sent it on reconnecting, each place tRPC reads it from. */
  lastEventIds?: readonly SentPosition[];
  /** The HTTP request's method (a batch's), for the 404 of a call naming no procedure. */
  method?: string;
}

/**
 * The tRPC code for each HTTP status of our error model, from tRPC's own table, so neither list is repeated. Where
 * two codes share a status (400: PARSE_ERROR, BAD_REQUEST), the general one, listed last, wins. A status tRPC has
 * no code for (410 events_expired; 417, 431: answered before any procedure) takes its class's (BAD_REQUEST for a
 * 4xx), never a 500 a client would retry, and the error's `data.httpStatus` is the status itself.
 */
const TRPC_CODE_BY_STATUS = new Map<number, TRPCError['code']>();
for (const code of Object.keys(TRPC_ERROR_CODES_BY_KEY) as TRPCError['code'][]) {
  const status = getHTTPStatusCodeFromError(new TRPCError({ code }));
  if (Object.values(ERROR_CODES).includes(status as never)) TRPC_CODE_BY_STATUS.set(status, code);
}

/** Each procedure's operation (`pets.list`: listPets), whose input judges a call's and names its fields. */
export const OPERATION_OF_PROCEDURE = new Map(operations.map((op) => [trpcPath(op), op]));

const queries = operations.filter((op) => op.trpc.kind === 'query').map(trpcPath);
const mutations = operations.filter((op) => op.trpc.kind === 'mutation').map(trpcPath);

/**
 * Errors tRPC raises itself (before any procedure runs), in our error model. A call of a batch naming no procedure
 * is told what a request naming none is (trpc.express.ts): `no route for <method> <path>`, the call's path.
 */
const APP_ERROR_BY_TRPC_CODE: Partial<
  Record<TRPCError['code'], (path: string | undefined, ctx: TrpcContext | undefined) => AppError>
> = {
  PARSE_ERROR: () => new AppError('malformed_json', 'request input is not valid JSON'),
  NOT_FOUND: (path, ctx) =>
    new AppError('route_not_found', `no route for ${ctx?.method} ${API_BASE_PATH}${TRPC_ENDPOINT}/${path}`),
  METHOD_NOT_SUPPORTED: () =>
    new AppError(
      'method_not_allowed',
      `use GET for queries (${queries.join(', ')}) and POST for mutations (${mutations.join(', ')})`,
    ),
  PAYLOAD_TOO_LARGE: () => new AppError('payload_too_large', 'request body is too large'),
  UNSUPPORTED_MEDIA_TYPE: () =>
    new AppError('unsupported_media_type', 'Content-Type must be application/json'),
  BAD_REQUEST: () => new AppError('validation_failed', 'the request could not be read'),
};

/** The AppError behind any tRPC error: thrown by our code, an input that failed its schema, or tRPC's own. */
function appErrorOfTrpc(
  error: TRPCError,
  path: string | undefined,
  input: unknown,
  ctx: TrpcContext | undefined,
): AppError | undefined {
  const known = toAppError(error.cause);
  if (known !== undefined) return known;
  if (error.cause instanceof core.$ZodError) {
    // The input named as REST names it (for messages).
    const op = OPERATION_OF_PROCEDURE.get(path ?? '');
    const subject = op === undefined ? 'field' : inputSubject(op);
    return new AppError('validation_failed', describeIssues(error.cause, subject, input));
  }
  return APP_ERROR_BY_TRPC_CODE[error.code]?.(path, ctx);
}

/**
 * tRPC's root: the context, the transformer, the error shape and the subscriptions' keep-alive. `keepAliveMs` is
 * EVENTS_KEEPALIVE_MS, as on the REST stream, so a deployment that shortens it for its proxies has it on both
 * transports: a ping after that long without an event keeps an idle stream open, and a client that hears nothing
 * for three of them reconnects (with its last event id).
 */
export function createTrpcRoot(keepAliveMs: number) {
  return initTRPC.context<TrpcContext>().create({
    transformer,
    // Never send stack traces (`data.stack`), in any environment.
    isDev: false,
    sse: {
      ping: { enabled: true, intervalMs: keepAliveMs },
      client: { reconnectAfterInactivityMs: 3 * keepAliveMs },
    },
    errorFormatter({ shape, error, path, input, ctx }) {
      const known = appErrorOfTrpc(error, path, input, ctx);
      if (known === undefined) ctx?.onInternalError(error.cause ?? error, path);
      const apiError: ApiError = (known ?? internalError()).toBody();
      // An error of ours says its own status, also one tRPC has no code for (410); tRPC's own errors keep theirs.
      const httpStatus = toAppError(error.cause)?.status ?? shape.data.httpStatus;
      return { ...shape, message: apiError.message, data: { ...shape.data, httpStatus, error: apiError } };
    },
  });
}

/**
 * Rethrows a domain error as a tRPC error whose code gives REST's HTTP status. In the resolvers, not a middleware:
 * each middleware level copies the call's options (a tenth of a tRPC call in the profile).
 */
export function throwTrpcError(error: unknown): never {
  const cause = toAppError(error);
  throw cause === undefined ? error : trpcErrorOf(cause);
}

/** An AppError as the TRPCError whose code gives the HTTP status REST would send. */
export function trpcErrorOf(cause: AppError): TRPCError {
  return new TRPCError({
    code:
      TRPC_CODE_BY_STATUS.get(cause.status) ?? (cause.status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR'),
    message: cause.message,
    cause,
  });
}
