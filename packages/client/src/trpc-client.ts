import { IDEMPOTENCY_KEY_HEADER, operations, TRPC_ENDPOINT, trpcPath } from '@petstore/schema';
// The router's type comes from the contract, which the service implements: the client never sees the server.
import type { AppRouter } from '@petstore/schema/trpc';
import {
  createTRPCClient,
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  type TRPCClient,
  TRPCClientError,
  type TRPCLink,
} from '@trpc/client';
import { observable } from '@trpc/server/observable';
import { EventSource, type EventSourceInit, type FetchLike } from 'eventsource';
import superjson, { type SuperJSONResult } from 'superjson';
import { authorizationHeaders } from './api-key.js';
import { checkTrpcUrl, type PetStoreEnvironment, resolveBaseUrl } from './environments.js';
import { assertExactInt64 } from './int64-input.js';
import { readAfterFetch } from './read-after.js';
import { errorOfReply } from './reply-error.js';
import {
  attemptsOf,
  attemptsSuffix,
  type CallPolicyOptions,
  createRetryingFetch,
  newIdempotencyKey,
  parseRetryAfter,
  type RetryPolicy,
  retryPolicy,
  sleep,
} from './retry.js';
import { assertClientRuntime } from './runtime.js';

export type { AppRouter };

/** The tRPC client, typed by the contract's router: `client.pets.list.query(...)`, `client.pets.create.mutate(...)`. */
export type PetStoreTrpcClient = TRPCClient<AppRouter>;

export type TrpcClientOptions = (
  | {
      /** The tRPC endpoint, `<base URL>/trpc`, for example `http://127.0.0.1:3000/v1/trpc`. */
      url: string;
      environment?: never;
    }
  | {
      /** Use `<base URL of the environment>/trpc`; see `ENVIRONMENT_VARIABLES`. */
      environment: PetStoreEnvironment;
      url?: never;
    }
) & {
  /** Sent as `Authorization: Bearer <apiKey>` on every request; `null` when a proxy in front adds the key. */
  apiKey: string | null;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
  /** Send the calls made in the same tick in one request (default true). */
  batch?: boolean;
} & CallPolicyOptions;

/**
 * The input field that carries each procedure's idempotency key over tRPC (`pets.create` -> `idempotencyKey`):
 * one HTTP request carries a batch of calls and so shares its headers, so the key travels inside each call.
 */
const KEY_FIELDS = new Map(
  operations.flatMap((op) => {
    const header = op.request.headers?.[IDEMPOTENCY_KEY_HEADER];
    return header === undefined ? [] : [[trpcPath(op), header.field] as const];
  }),
);

/** Each procedure's input schema, from the contract, for the int64 check made before a call is sent. */
const INPUT_SCHEMAS = new Map(operations.map((op) => [trpcPath(op), op.input] as const));

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a tRPC request may be repeated: a query (GET) always; a mutation only when every call it carries
 * has its idempotency key (the service then replays the first answer instead of creating again).
 */
function trpcRequestCanRetry(url: string, init: RequestInit): boolean {
  if ((init.method ?? 'GET') === 'GET') return true;
  if (typeof init.body !== 'string') return false;
  const paths = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '').split(',');
  const batch = /[?&]batch=1(?:&|$)/.test(url);
  let body: unknown;
  try {
    body = JSON.parse(init.body);
  } catch {
    return false;
  }
  return paths.every((path, index) => {
    const field = KEY_FIELDS.get(path);
    const envelope = batch && isRecord(body) ? body[index] : body;
    const input = isRecord(envelope) ? envelope.json : undefined;
    return field !== undefined && isRecord(input) && typeof input[field] === 'string';
  });
}

/**
 * Before a call is sent: refuses an int64 given as a number that is not a safe integer (the REST client's check,
 * assertExactInt64: superjson would write it rounded), and gives every call of a keyed procedure its idempotency
 * key (a new random UUID unless the caller put one in the input), so that all its attempts carry the same one.
 * After: says in a failure's message how many attempts it took.
 */
function idempotencyLink(policy: RetryPolicy): TRPCLink<AppRouter> {
  return () =>
    ({ op, next }) =>
      observable((observer) => {
        const schema = INPUT_SCHEMAS.get(op.path);
        try {
          if (schema !== undefined) assertExactInt64(schema, op.input);
        } catch (error) {
          observer.error(TRPCClientError.from(error as Error));
          return;
        }
        const field = KEY_FIELDS.get(op.path);
        const input =
          field !== undefined && policy.attempts > 1 && isRecord(op.input) && op.input[field] === undefined
            ? { ...op.input, [field]: newIdempotencyKey() }
            : op.input;
        return next({ ...op, input }).subscribe({
          next: (value) => observer.next(value),
          complete: () => observer.complete(),
          error: (error) => {
            const attempts = attemptsOf(error);
            if (attempts !== undefined) {
              // A reply read as REST reads it (jsonReplies) says so already.
              if (!error.message.endsWith(attemptsSuffix(attempts)))
                error.message += attemptsSuffix(attempts);
              Object.assign(error, { attempts });
            }
            observer.error(error);
          },
        });
      });
}

/** Statuses after which a subscription's EventSource connects again instead of giving up. */
const SUBSCRIPTION_RETRY_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * The `fetch` of a subscription's EventSource (the `eventsource` package, which takes one: a browser's own
 * EventSource cannot send headers, and Node has none without a flag): the bearer key on every connection, and a
 * 429 or 5xx turned into a network error after its Retry-After (at most `maxRetryAfterMs`), because an
 * EventSource gives up for good on any status but 200 while it retries a network error after its `retry:` time,
 * resuming with `Last-Event-ID`.
 */
function subscriptionFetch(
  inner: typeof globalThis.fetch,
  authorization: Record<string, string>,
  policy: RetryPolicy,
): FetchLike {
  return async (url, init) => {
    const response = await inner(url, { ...init, headers: { ...init.headers, ...authorization } });
    if (!SUBSCRIPTION_RETRY_STATUSES.has(response.status)) return response;
    await response.body?.cancel();
    const wait = Math.min(parseRetryAfter(response.headers.get('retry-after')) ?? 0, policy.maxRetryAfterMs);
    if (init.signal) await sleep(wait, init.signal);
    throw new TypeError(`${url} answered ${response.status}: connecting again`);
  };
}

/**
 * tRPC reads every reply with `response.json()`, so one that is not JSON (a proxy's HTML 502, retried like any
 * 502) failed as a bare SyntaxError, without its status or the attempts recorded on the Response. Read as the REST
 * client reads a reply (errorOfReply): a PetStoreApiError of kind `non_json` with `status`, `responseText` and
 * `attempts`, which tRPC's error then carries as its cause.
 */
function jsonReplies(fetchImpl: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const json = async () => {
      const text = await response.text();
      try {
        return JSON.parse(text);
      } catch {
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        throw errorOfReply(`${init?.method ?? 'GET'} ${url}`, response.status, text, attemptsOf(response));
      }
    };
    return Object.assign(response, { json });
  };
}

/** A tRPC error response (`{ error: shape }`) from the text of an answer, or undefined if it is not one. */
function trpcErrorResponseOf(text: string): { error: unknown } | undefined {
  try {
    const envelope: unknown = JSON.parse(text);
    if (!isRecord(envelope) || !isRecord(envelope.error)) return undefined;
    const shape: unknown = superjson.deserialize(envelope.error as unknown as SuperJSONResult);
    return isRecord(shape) && typeof shape.code === 'number' && typeof shape.message === 'string'
      ? { error: shape }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The EventSource of subscriptions. tRPC makes a subscription's TRPCClientError from the EventSource's final
 * `error` event (TRPCClientError.from(event)), and an EventSource drops the body of a non-200 answer, so the
 * service's refusal of the connection (a bad key's 401: tRPC's error envelope, the Error body in `data.error`)
 * was lost and apiErrorOf found nothing. This one reads that body and puts it on the event as `error`, where
 * TRPCClientError.from reads an error response: the error carries `data` as a query's refusal does.
 */
class RefusalReadingEventSource extends EventSource {
  constructor(url: string | URL, init: EventSourceInit = {}) {
    let refusal: { error: unknown } | undefined;
    const fetch: FetchLike = init.fetch ?? ((input, requestInit) => globalThis.fetch(input, requestInit));
    super(url, {
      ...init,
      fetch: async (input, requestInit) => {
        const response = await fetch(input, requestInit);
        if (response.status === 200) return response;
        refusal = trpcErrorResponseOf(await new Response(response.body as ReadableStream | null).text());
        return new Response(null, { status: response.status });
      },
    });
    this.addEventListener('error', (event) => {
      if (refusal !== undefined && this.readyState === this.CLOSED) Object.assign(event, refusal);
    });
  }
}

/**
 * A tRPC client for internal TypeScript apps. Inputs and results are typed by the service's `AppRouter`; int64
 * values travel as `bigint` (superjson). Calls are retried like the REST client's (`retries`, `timeoutMs`);
 * each takes an AbortSignal as tRPC's own `{ signal }` option, and `pets.create` accepts `idempotencyKey`. A failure is a `TRPCClientError` whose `data.error` is the same
 * `Error` body REST would have sent; `apiErrorOf(error)` reads it for either client. Subscriptions
 * (`pets.events.subscribe(input, { onData })`) run over Server-Sent Events with the bearer key, in Node and in
 * browsers alike, and resume after a dropped connection from the last event received.
 */
export function createTrpcClient(options: TrpcClientOptions): PetStoreTrpcClient {
  assertClientRuntime();
  const url =
    options.environment !== undefined
      ? `${resolveBaseUrl({ environment: options.environment })}${TRPC_ENDPOINT}`
      : checkTrpcUrl(options.url);
  const authorization = authorizationHeaders(options.apiKey);
  const policy = retryPolicy(options);
  const linkOptions = {
    url,
    transformer: superjson,
    headers: () => authorization,
    fetch: jsonReplies(
      createRetryingFetch(
        readAfterFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
        policy,
        trpcRequestCanRetry,
      ),
    ),
  };
  return createTRPCClient<AppRouter>({
    links: [
      idempotencyLink(policy),
      splitLink({
        // Subscriptions (the change feed, pets.events) over Server-Sent Events; each event is tracked by its id, so
        // a reconnect resumes after the last one received (`Last-Event-ID`, read by the service as lastEventId).
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url,
          transformer: superjson,
          EventSource: RefusalReadingEventSource,
          eventSourceOptions: {
            fetch: subscriptionFetch(
              options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
              authorization,
              policy,
            ),
          },
        }),
        false: options.batch === false ? httpLink(linkOptions) : httpBatchLink(linkOptions),
      }),
    ],
  });
}
