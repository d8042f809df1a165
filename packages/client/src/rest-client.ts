import {
  type Contract,
  contract as defaultContract,
  type HttpMethod,
  IDEMPOTENCY_KEY_HEADER,
  type Int64Input,
  type ListPetsQueryInput,
  type NewPetInput,
  type OperationContract,
  PET_EVENT_KINDS,
  type Pet,
  type PetEvent,
  PetEventSchema,
  type PetStatus,
  parseJson,
  type RestOperationContract,
  type RestOperationId,
  stringifyJson,
} from '@petstore/schema';
import { describeIssues, fillPath, isRestOperation, restOperations } from '@petstore/schema/internal';
import type * as z from 'zod/mini';
import { authorizationHeaders } from './api-key.js';
import { PetStoreApiError } from './client-error.js';
import { type PetStoreTarget, resolveBaseUrl } from './environments.js';
import { type FollowOptions, followEventStream } from './follow-events.js';
import { assertExactInt64 } from './int64-input.js';
import { readAfterFetch } from './read-after.js';
import { errorOfReply } from './reply-error.js';
import {
  attemptsOf,
  attemptsSuffix,
  type CallOptions,
  type CallPolicyOptions,
  createRetryingFetch,
  newIdempotencyKey,
  retryPolicy,
} from './retry.js';
import { assertClientRuntime } from './runtime.js';

/** createPet's per-call options. */
export interface CreatePetOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key`. When retries are on and none is given, the client makes one per call (a random
   * UUID) and sends it with every attempt of that call, so a create whose answer was lost is retried safely.
   */
  idempotencyKey?: string;
}

export type RestClientOptions = PetStoreTarget &
  CallPolicyOptions & {
    /** Sent as `Authorization: Bearer <apiKey>` on every call; `null` when a proxy in front adds the key. */
    apiKey: string | null;
    /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
    fetch?: typeof globalThis.fetch;
    /**
     * Check every success body against the schema (default true). With false, bodies are trusted: the int64
     * fields `id` and `categoryId` still become `bigint`, nothing else is checked.
     */
    validateResponses?: boolean;
  };

/**
 * The operations of the interface over REST, one method per operation of the contract (`@petstore/schema`'s
 * `contract`), named by its operationId. Every failure is a {@link PetStoreApiError}.
 */
export interface RestClient extends ContractRestClient {
  /** listPets: `GET /pets`, ordered by id ascending; `limit` 1..100 (default 20), optional `status` filter. */
  listPets(query?: ListPetsQueryInput, options?: CallOptions): Promise<Pet[]>;
  /**
   * createPet: `POST /pets`; returns the stored pet with its new `id`. Retried (with retries on) under one
   * idempotency key per call, so it stores the pet once however many attempts it takes.
   */
  createPet(newPet: NewPetInput, options?: CreatePetOptions): Promise<Pet>;
  /**
   * getPet: `GET /pets/{petId}`.
   * @deprecated The service removes this operation on 5 December 2030 (`Sunset` header). Use
   * {@link RestClient.listPets} with the `status` filter instead.
   */
  getPet(petId: Int64Input, options?: CallOptions): Promise<Pet>;
  /**
   * One page of listPets: the pets, and the cursor of the next page (from the response's
   * `Link: <...>; rel="next"`), null on the last page. Pass it back as `cursor` for the next page.
   */
  listPetsPage(query?: ListPetsQueryInput, options?: CallOptions): Promise<PetsPageResult>;
  /**
   * Every pet (of `status`, when given), in id order, fetched `limit` at a time (default 100) by following
   * `Link: rel="next"` to the last page. Pets that existed when the walk started are each yielded exactly once.
   */
  allPets(
    query?: { status?: PetStatus; limit?: number },
    options?: CallOptions,
  ): AsyncGenerator<Pet, void, undefined>;
  /**
   * streamPetEvents (beta): `GET /pets/events`, the change feed, as events arrive: each event once, in id order,
   * for as long as the loop runs. `since` starts after that event id (`0`: every event still kept); without it,
   * only events after the stream opened. A dropped connection, a 5xx, a 429 or the end of the stream is followed
   * by a reconnect after a backoff, resuming after the last event yielded (`Last-Event-ID`). Fails with a
   * {@link PetStoreApiError} on any other refusal (401, 400, 410 `events_expired`: list the pets again, then
   * follow from now), and once it could not reconnect within `timeoutMs`. `break` or the signal closes it.
   */
  followPetEvents(
    query?: FollowPetEventsQuery,
    options?: FollowOptions,
  ): AsyncGenerator<PetEvent, void, undefined>;
}

/** What {@link RestClient.followPetEvents} follows: events of pets with `status` only, after event id `since`. */
export interface FollowPetEventsQuery {
  status?: PetStatus;
  since?: Int64Input;
}

/** A page of pets over REST: the body, and the cursor of the next page from its `Link` header (or null). */
export interface PetsPageResult {
  pets: Pet[];
  nextCursor: string | null;
}

/** The `cursor` of the `rel="next"` URL in a `Link` header (RFC 8288), or null when there is none. */
export function nextCursorFromLink(link: string | null): string | null {
  if (link === null) return null;
  for (const match of link.matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? '';
    if (!/;\s*rel\s*=\s*"?(?:[^";,]*\s)?next(?:\s[^";,]*)?"?/i.test(params)) continue;
    const url = URL.parse(match[1] ?? '', 'http://link.invalid');
    return url?.searchParams.get('cursor') ?? null;
  }
  return null;
}

/** Operations keyed by operationId, as the contract (or a test contract) declares them. */
type AnyContract = Readonly<Record<string, OperationContract>>;

/** The names of an operation's path parameters, when it has any. */
type ParamName<Op> = Op extends { request: { params: z.ZodMiniObject<infer Shape> } }
  ? keyof Shape & string
  : never;

type InputOf<Op> = Op extends { input: infer S extends z.ZodMiniType } ? z.input<S> : never;
type OutputOf<Op> = Op extends { success: { body: { schema: infer S extends z.ZodMiniType } } }
  ? z.output<S>
  : undefined;

/** Per-call options: an idempotency key only where the operation declares the `Idempotency-Key` header. */
type OptionsOf<Op> = Op extends { request: { headers: Record<typeof IDEMPOTENCY_KEY_HEADER, unknown> } }
  ? CreatePetOptions
  : CallOptions;

/**
 * A client method's argument: the operation's body when it has one (with path parameters too: its whole input,
 * the parameters filling the path and the other fields the body), else its only path parameter, else its
 * (optional) query.
 */
type ArgumentsOf<Op> = Op extends { request: { body: { schema: infer S extends z.ZodMiniType } } }
  ? [ParamName<Op>] extends [never]
    ? [body: z.input<S>, options?: OptionsOf<Op>]
    : [input: InputOf<Op>, options?: OptionsOf<Op>]
  : [ParamName<Op>] extends [never]
    ? [query?: InputOf<Op>, options?: OptionsOf<Op>]
    : [value: InputOf<Op>[ParamName<Op> & keyof InputOf<Op>], options?: OptionsOf<Op>];

/**
 * One method per REST operation of the contract (default the interface's), typed from it. A stream (an operation
 * with `success.stream`) has no such method: it is not one answer; the client follows it with an iterator.
 */
export type ContractRestClient<C extends AnyContract = Contract> = {
  [Id in keyof C & string as C[Id] extends { method: HttpMethod }
    ? C[Id] extends { success: { stream: object } }
      ? never
      : Id
    : never]: (...args: ArgumentsOf<C[Id]>) => Promise<OutputOf<C[Id]>>;
};

type Json = ReturnType<typeof parseJson>;

const toBigInt = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;

/** Unvalidated mode: only turn int64 fields into bigint so the declared types hold for well-formed bodies. */
function trustPet(value: Json): Json {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(trustPet);
  const pet = value as Record<string, unknown>;
  return { ...pet, id: toBigInt(pet.id), categoryId: toBigInt(pet.categoryId) };
}

/** {@link trustPet} for an event: its own id and its pet's int64 fields. */
function trustEvent(value: Json): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const event = value as Record<string, unknown>;
  return { ...event, id: toBigInt(event.id), pet: trustPet(event.pet as Json) };
}

// A query string cannot carry types, so values are written as text and the service reads them back; anything
// but a plain value is sent as is (String) so the service, the one authority on the rules, reports it.
function queryString(query: object | undefined): string {
  if (query === undefined || query === null) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.append(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The request of one call, from the contract: the single argument of a client method is the operation's body
 * when it has one (its whole input when it has path parameters too: they fill the path, the rest is the body),
 * else its only path parameter, else its query.
 */
function requestOf(op: RestOperationContract, argument: unknown): { path: string; body?: unknown } {
  const parameters = Object.keys(op.request.params?.shape ?? {});
  // The operation's input as the caller gave it, checked for int64 numbers before any of it is written.
  const [parameter] = parameters;
  assertExactInt64(
    op.input,
    op.request.body === undefined && parameter !== undefined ? { [parameter]: argument } : argument,
  );
  if (op.request.body !== undefined) {
    if (parameters.length === 0) return { path: op.path, body: argument };
    const { ...body } = argument as Record<string, unknown>;
    for (const name of parameters) delete body[name];
    return { path: fillPath(op.path, argument as Record<string, unknown>), body };
  }
  if (parameter !== undefined) return { path: fillPath(op.path, { [parameter]: argument }) };
  return { path: `${op.path}${queryString(argument as object | undefined)}` };
}

/**
 * A REST client for the service at `baseUrl` (or the URL of `environment`). Inputs are not checked here: the
 * service checks them, so a mistake gets the same `Error` body from REST, from tRPC and from any other client.
 * int64 values are exact both ways (`bigint` in and out, JSON numbers with every digit on the wire): a `number`
 * where an int64 goes must be a safe integer, or the call fails with a TypeError before any request.
 */
export function createRestClient(options: RestClientOptions): RestClient;
/**
 * A REST client for the operations of `contract` (keyed by operationId) instead of the interface's: a test
 * contract (the real one plus an operation) gets a method for its new operation with nothing else to write.
 */
export function createRestClient<C extends AnyContract>(
  options: RestClientOptions & { contract: C },
): ContractRestClient<C>;
export function createRestClient(options: RestClientOptions & { contract?: AnyContract }): unknown {
  assertClientRuntime();
  const baseUrl = resolveBaseUrl(options);
  const authorization = authorizationHeaders(options.apiKey);
  const policy = retryPolicy(options);
  // Reads are repeated freely; a write only under an idempotency key, which the service deduplicates by.
  const fetchImpl = createRetryingFetch(
    readAfterFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
    policy,
    (_url, init) =>
      init.method === 'GET' ||
      (init.headers as Record<string, string>)[IDEMPOTENCY_KEY_HEADER.toLowerCase()] !== undefined,
  );
  const validate = options.validateResponses ?? true;

  async function call<S extends z.ZodMiniType>(
    method: string,
    path: string,
    schema: S | undefined,
    trust: (body: Json) => Json,
    body?: unknown,
    onHeaders?: (headers: Headers) => void,
    request: { signal?: AbortSignal | undefined; headers?: Record<string, string> } = {},
  ): Promise<z.output<S>> {
    const url = `${baseUrl}${path}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...authorization,
      ...request.headers,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    let attempts: number | undefined;
    try {
      const response = await fetchImpl(url, {
        method,
        headers,
        body: body === undefined ? undefined : stringifyJson(body),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      attempts = attemptsOf(response);
      status = response.status;
      text = await response.text();
      onHeaders?.(response.headers);
    } catch (cause) {
      attempts = attemptsOf(cause) ?? attempts;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new PetStoreApiError(
        'network',
        `${method} ${url} got no reply: ${reason}${reason.includes(' attempts)') ? '' : attemptsSuffix(attempts)}`,
        { cause, attempts },
      );
    }

    if (status < 200 || status > 299) throw errorOfReply(`${method} ${url}`, status, text, attempts);
    let json: Json;
    try {
      // A success without a body (204) has no JSON to read.
      json = text === '' && schema === undefined ? undefined : parseJson(text);
    } catch {
      throw new PetStoreApiError(
        'non_json',
        `${method} ${url} answered ${status} with a body that is not JSON${attemptsSuffix(attempts)}`,
        { status, responseText: text, attempts },
      );
    }

    if (schema === undefined) return undefined as z.output<S>;
    if (!validate) return trust(json) as z.output<S>;
    const result = schema.safeParse(json);
    if (!result.success) {
      throw new PetStoreApiError(
        'invalid_body',
        `${method} ${url} answered ${status} with a body that does not match the interface: ${describeIssues(result.error, 'field')}`,
        { status, responseText: text },
      );
    }
    return result.data;
  }

  const client: Record<string, unknown> = {};
  const operations = Object.values(options.contract ?? defaultContract).filter(isRestOperation);
  for (const op of operations.filter((candidate) => candidate.success.stream === undefined)) {
    const takesKey = op.request.headers?.[IDEMPOTENCY_KEY_HEADER] !== undefined;
    client[op.id] = async (argument?: unknown, callOptions: CreatePetOptions = {}) => {
      const { path, body } = requestOf(op, argument);
      // One key per logical call, the same on each of its attempts.
      const key = takesKey
        ? (callOptions.idempotencyKey ?? (policy.attempts > 1 ? newIdempotencyKey() : undefined))
        : undefined;
      return call(op.method, path, op.success.body?.schema, trustPet, body, undefined, {
        signal: callOptions.signal,
        headers: key === undefined ? {} : { [IDEMPOTENCY_KEY_HEADER.toLowerCase()]: key },
      });
    };
  }
  const listPets = restOperations.find((op) => op.id === 'listPets') as RestOperationContract;
  async function listPetsPage(
    query?: ListPetsQueryInput,
    callOptions: CallOptions = {},
  ): Promise<PetsPageResult> {
    let link: string | null = null;
    const { path } = requestOf(listPets, query);
    const pets = (await call(
      listPets.method,
      path,
      listPets.success.body?.schema,
      trustPet,
      undefined,
      (headers) => {
        link = headers.get('link');
      },
      { signal: callOptions.signal },
    )) as Pet[];
    return { pets, nextCursor: nextCursorFromLink(link) };
  }
  client.listPetsPage = listPetsPage;
  client.allPets = async function* allPets(
    query: { status?: PetStatus; limit?: number } = {},
    callOptions: CallOptions = {},
  ) {
    let cursor: string | undefined;
    do {
      const page = await listPetsPage(
        { limit: query.limit ?? 100, status: query.status, cursor },
        callOptions,
      );
      yield* page.pets;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  };
  const streamPetEvents = restOperations.find((op) => op.id === 'streamPetEvents') as RestOperationContract;
  const followDeps = {
    // Not the retrying fetch: its deadline would cut a stream that is meant to stay open. The follower retries.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    headers: authorization,
    policy,
    kinds: PET_EVENT_KINDS,
    decode: (data: string, request: string): PetEvent => {
      let json: Json;
      try {
        json = parseJson(data);
      } catch {
        throw new PetStoreApiError('non_json', `${request} sent an event whose data is not JSON`, {
          status: 200,
          responseText: data,
        });
      }
      if (!validate) return trustEvent(json) as PetEvent;
      const result = PetEventSchema.safeParse(json);
      if (!result.success) {
        throw new PetStoreApiError(
          'invalid_body',
          `${request} sent an event that does not match the interface: ${describeIssues(result.error, 'field')}`,
          { status: 200, responseText: data },
        );
      }
      return result.data;
    },
  } satisfies Parameters<typeof followEventStream<PetEvent>>[0];
  client.followPetEvents = (query: FollowPetEventsQuery = {}, followOptions: FollowOptions = {}) => {
    assertExactInt64(streamPetEvents.input, query);
    return followEventStream(
      followDeps,
      `${baseUrl}${streamPetEvents.path}${queryString({ status: query.status, since: query.since })}`,
      followOptions,
    );
  };
  return client;
}
