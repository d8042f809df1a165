// The interface's operations, each declared once: method, path, request parts, typed input, success response,
// every error status with its codes, headers, deprecation, stability level and tRPC name. Plain data and zod
// models, no server code: the api mounts its Express routes and tRPC procedures from it, the OpenAPI document is
// generated from it, the REST client builds its methods from it and the conformance suite reads its statuses from it.
import * as z from 'zod/mini';
import type { ErrorCode } from '../error.js';
import { EventPositionTextSchema, LAST_EVENT_ID_HEADER, PET_EVENT_KINDS, PetEventSchema } from '../events.js';
import { IDEMPOTENCY_KEY_DESCRIPTION, IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema } from '../idempotency.js';
import { PositiveInt64Schema } from '../int64.js';
import { NewPetSchema, PetSchema, PetsPageSchema, PetsSchema } from '../pet.js';
import {
  ListPetsQuerySchema,
  ListPetsSearchParamsSchema,
  PetEventsQuerySchema,
  PetEventsSearchParamsSchema,
  PetIdPathSchema,
  PetsPageQuerySchema,
} from '../queries.js';
import { READ_AFTER_HEADER } from '../read-after.js';
import { REQUEST_BODY_LIMIT_BYTES } from './constants.js';
import {
  type BodyContract,
  type ErrorResponseContract,
  type HeaderContract,
  isRestOperation,
  type OperationContract,
  type RestOperationContract,
} from './types.js';

// ---- errors every operation shares ---------------------------------------------------------------------------

const RETRY_AFTER: HeaderContract = {
  description: 'Seconds to wait before retrying.',
  required: true,
};

/**
 * The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers), sent with every answer to an admitted
 * request when the deployment sets a rate limit; never otherwise, hence not required.
 */
export const RATE_LIMIT_HEADER_CONTRACTS: Readonly<Record<string, HeaderContract>> = {
  'RateLimit-Policy': {
    description:
      'The quota policy, when a rate limit is set: `"per-key";q=<requests>;w=<window seconds>` (IETF draft ' +
      'draft-ietf-httpapi-ratelimit-headers).',
    required: false,
  },
  RateLimit: {
    description:
      'Where the caller stands, when a rate limit is set: `"per-key";r=<requests left>;t=<seconds until the ' +
      'quota is restored>`; on a 429 for a spent quota, `t` equals `Retry-After`.',
    required: false,
  },
};

const COMMON_ERRORS = {
  401: {
    description:
      "Missing, malformed or unknown API key. Checked before anything about the request's content (the edge's " +
      'message-level refusals aside).',
    codes: ['unauthorized'],
    headers: {
      'WWW-Authenticate': {
        description:
          '`Bearer realm="petstore"`, plus `error="invalid_token"` when a key was sent but is unknown and ' +
          '`error="invalid_request"` when the Bearer credential is malformed or sent twice (RFC 6750 section 3.1).',
        required: true,
      },
    },
  },
  429: {
    description:
      "The caller's request budget is spent (only when the deployment sets a rate limit), or too many requests " +
      'with a wrong API key came from one address.',
    codes: ['rate_limited'],
    headers: { 'Retry-After': RETRY_AFTER, ...RATE_LIMIT_HEADER_CONTRACTS },
  },
  412: {
    description:
      'A precondition is false (RFC 9110 section 13.2): `If-Match` names no current representation (the API ' +
      'sends no entity tags, so only `*` can match), or `If-None-Match: *` on an unsafe method, where the ' +
      'resource exists. The method was not applied. A malformed `If-Match` names no tag, so it is false too, as is a malformed `If-None-Match` (`*, *`) on an unsafe method.',
    codes: ['precondition_failed'],
  },
  500: {
    description: 'A fault on our side. Details are logged under the request id, never sent.',
    codes: ['internal_error'],
  },
  503: {
    description:
      'The database cannot serve the request now: unreachable, restarting, or (for a create) out of ids, which ' +
      'lasts until an operator acts; the message says which. Retry after the indicated delay.',
    codes: ['service_unavailable'],
    headers: { 'Retry-After': RETRY_AFTER },
  },
} as const satisfies Record<number, ErrorResponseContract>;

const BODY_ERRORS = {
  413: {
    description: `The request body is over ${REQUEST_BODY_LIMIT_BYTES / 1024} KiB.`,
    codes: ['payload_too_large'],
  },
  415: {
    description:
      'The body was not sent as `application/json` (or `application/*+json`) in UTF-8, or without a Content-Type, ' +
      'or with a `Content-Encoding`.',
    codes: ['unsupported_media_type'],
    headers: {
      'Accept-Encoding': {
        description:
          '`identity`: the only coding the API reads in a request body (RFC 9110 section 12.5.3), on a 415 for a ' +
          'coded body.',
        required: false,
      },
    },
  },
} as const satisfies Record<number, ErrorResponseContract>;

/**
 * What the edge answers, on any operation's path, before the request reaches the operation: a message that could
 * not be read with confidence, one that did not arrive in time, header fields over the limit, an unmet
 * expectation, a transfer coding it does not speak. The connection is closed after each (`Connection: close`).
 */
const EDGE_ERRORS = {
  400: {
    description:
      'The message could not be read with confidence (`malformed_request`): an ambiguous or repeated singleton ' +
      'header, a bad Host or request target, a body on a GET, a `Petstore-Read-After` that is not a position ' +
      'the API returned, or a trailer field after a chunked body. The connection is closed.',
    codes: ['malformed_request'],
  },
  408: {
    description:
      "The request (its headers, or its body) did not arrive within the server's time limits. The connection is " +
      'closed.',
    codes: ['request_timeout'],
  },
  415: {
    description: 'A `Transfer-Encoding` other than `chunked` alone. The connection is closed.',
    codes: ['unsupported_media_type'],
  },
  417: {
    description: 'An `Expect` other than `100-continue`. The connection is closed.',
    codes: ['expectation_failed'],
  },
  431: {
    description:
      'More header fields than the API accepts, or the request line and headers over the size limit.',
    codes: ['headers_too_large'],
  },
} as const satisfies Record<number, ErrorResponseContract>;

type ErrorMap = Readonly<Record<number, ErrorResponseContract>>;
type CodesOf<E> = E extends { codes: readonly (infer Code extends ErrorCode)[] } ? Code : never;
/** Two error maps as one: a status both declare carries the codes of both. */
type MergedErrors<A extends ErrorMap, B extends ErrorMap> = {
  readonly [Status in keyof A | keyof B]: {
    readonly description: string;
    readonly codes: readonly (
      | (Status extends keyof A ? CodesOf<A[Status]> : never)
      | (Status extends keyof B ? CodesOf<B[Status]> : never)
    )[];
    readonly headers?: Readonly<Record<string, HeaderContract>>;
  };
};

/** Two error maps as one: a status both declare gets both descriptions and the codes of both, in order. */
function mergeErrors(a: ErrorMap, b: ErrorMap): Record<number, ErrorResponseContract> {
  const merged: Record<number, ErrorResponseContract> = { ...a };
  for (const [status, error] of Object.entries(b)) {
    const mine = merged[Number(status)];
    merged[Number(status)] =
      mine === undefined
        ? error
        : {
            description: `${mine.description} ${error.description}`,
            codes: [...new Set([...mine.codes, ...error.codes])],
            ...(mine.headers === undefined && error.headers === undefined
              ? {}
              : { headers: { ...mine.headers, ...error.headers } }),
          };
  }
  return merged;
}

/**
 * An operation with the errors every operation shares (401, 429, 500, 503; the edge's 400, 415, 417 and 431;
 * 413 and 415 when it takes a body) added to its own, so that each entry below lists only what is particular to
 * it and the result lists all.
 */
function operation<
  const T extends Omit<OperationContract, 'errors'> & { errors: OperationContract['errors'] },
>(spec: T): WithSharedErrors<T> {
  const shared = spec.request.body === undefined ? SHARED_ERRORS : mergeErrors(SHARED_ERRORS, BODY_ERRORS);
  const errors = mergeErrors(spec.errors, shared);
  const sorted = Object.fromEntries(Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b)));
  return { ...spec, errors: sorted } as unknown as WithSharedErrors<T>;
}

const SHARED_ERRORS = mergeErrors(COMMON_ERRORS, EDGE_ERRORS);

/** An operation's type with the shared errors {@link operation} adds, so that its typed error codes include them. */
type WithSharedErrors<T extends Pick<OperationContract, 'errors' | 'request'>> = Omit<T, 'errors'> & {
  readonly errors: MergedErrors<
    T['errors'],
    MergedErrors<
      MergedErrors<typeof COMMON_ERRORS, typeof EDGE_ERRORS>,
      T['request'] extends { body: BodyContract } ? typeof BODY_ERRORS : Record<never, never>
    >
  >;
};

const PETS_BODY = { id: 'Pets', schema: PetsSchema } as const satisfies BodyContract;
const PET_BODY = { id: 'Pet', schema: PetSchema } as const satisfies BodyContract;

/** getPet's typed input: the id of the pet. */
export const GetPetInputSchema = z.strictObject({
  petId: PositiveInt64Schema.check(
    z.describe(
      'Identifier of the animal. A value that cannot be an id (`abc`, `0`, `-1`, `1.5`, above 2^63-1) is 400; ' +
        'a well-formed id that names no animal is 404.',
    ),
  ),
});

/** The operations of the interface, keyed by operationId. */
export const contract = {
  listPets: operation({
    id: 'listPets',
    method: 'GET',
    path: '/pets',
    summary: 'List animals',
    description:
      'Returns at most `limit` animals, optionally only those with a given `status`, ordered by `id` ascending ' +
      '(oldest first). The body is a bare JSON array. When more animals may follow, the response carries ' +
      '`Link: <...>; rel="next"` (RFC 8288): the absolute URL of the next page, with the same `limit` and ' +
      '`status` and an opaque `cursor`. Following it to the end lists every animal that existed when the walk ' +
      'started exactly once, in id order, even while others are added. The last page has no `Link`.',
    request: { query: ListPetsSearchParamsSchema },
    input: z.prefault(ListPetsQuerySchema, {}),
    success: {
      status: 200,
      description: 'List of animals',
      body: PETS_BODY,
      headers: {
        Link: {
          description:
            'RFC 8288 `<absolute URL of the next page>; rel="next"`, present only when more animals may follow.',
          required: false,
        },
      },
      paged: { via: 'pagePets' },
    },
    errors: {
      400: {
        description:
          'A query parameter is invalid, repeated or unknown, or `cursor` is not a cursor of ours for this ' +
          '`status` (malformed, truncated, tampered with, too long); `message` names each one.',
        codes: ['validation_failed'],
      },
    },
    stability: 'stable',
    trpc: { router: 'pets', procedure: 'list', kind: 'query' },
  }),
  pagePets: operation({
    id: 'pagePets',
    summary: 'One page of animals (tRPC only)',
    description:
      'listPets as a page: `{ items, nextCursor }`, `nextCursor` null on the last page. For infinite lists ' +
      "(TanStack Query's `useInfiniteQuery`). Cursors are the same as REST's `cursor`: interchangeable.",
    request: {},
    input: z.prefault(PetsPageQuerySchema, {}),
    success: {
      status: 200,
      description: 'A page of animals',
      body: { id: 'PetsPage', schema: PetsPageSchema },
    },
    errors: {
      400: {
        description: 'An input field is invalid, or `cursor` is not a cursor of ours for this `status`.',
        codes: ['validation_failed'],
      },
    },
    // Not beta, though it is the newest shape: it was released (0.1.0) under the full compatibility promise, and
    // lowering a level is itself a break (docs/interface-decisions.md, "Stability levels").
    stability: 'stable',
    trpc: { router: 'pets', procedure: 'page', kind: 'query' },
  }),
  createPet: operation({
    id: 'createPet',
    method: 'POST',
    path: '/pets',
    summary: 'Add an animal',
    description:
      'Adds a new animal; the service assigns its `id`. The body must be `application/json`. With an ' +
      '`Idempotency-Key` header the request is safe to retry: a repeat with the same key and body returns the ' +
      'first response (same status, body and `Location`) and creates nothing.',
    request: {
      body: { id: 'NewPet', schema: NewPetSchema },
      headers: {
        [IDEMPOTENCY_KEY_HEADER]: {
          field: 'idempotencyKey',
          description: IDEMPOTENCY_KEY_DESCRIPTION,
          schema: IdempotencyKeySchema,
          invalidCode: 'invalid_idempotency_key',
        },
      },
    },
    // Over tRPC the key is a field of the input (each call of a batch has its own); its rule is the service's.
    input: z.extend(NewPetSchema, { idempotencyKey: z.optional(z.string()) }),
    success: {
      status: 201,
      description: 'Animal added; the body carries the assigned id',
      body: PET_BODY,
      headers: {
        Location: {
          description: "The new animal's URL, `/v1/pets/{id}` (or under the public URL).",
          required: true,
        },
        [READ_AFTER_HEADER]: {
          description:
            'Where the database was once the animal was stored (opaque), when the deployment reads from replicas. ' +
            'Send the latest one you have seen back on later requests, in the same header, to read your own ' +
            'writes; our clients do this by themselves.',
          required: false,
        },
      },
      location: { path: '/pets/{petId}', params: { petId: 'id' } },
    },
    errors: {
      400: {
        description:
          'Body missing, required field missing, a value invalid or an unknown field (`validation_failed`); ' +
          'the body is not valid JSON in UTF-8 (`malformed_json`); or `Idempotency-Key` is not 1 to 255 ' +
          'printable ASCII characters, not starting or ending with a space (`invalid_idempotency_key`).',
        codes: ['validation_failed', 'malformed_json', 'invalid_idempotency_key'],
      },
      409: {
        description:
          'A request with the same `Idempotency-Key` (same API key) is still being processed; retry shortly.',
        codes: ['idempotency_key_in_use'],
      },
      422: {
        description:
          'This `Idempotency-Key` was already used (same API key, within 24 hours) with a different body.',
        codes: ['idempotency_key_reused'],
      },
    },
    stability: 'stable',
    trpc: { router: 'pets', procedure: 'create', kind: 'mutation' },
  }),
  streamPetEvents: operation({
    id: 'streamPetEvents',
    method: 'GET',
    path: '/pets/events',
    summary: 'Follow new animals (beta)',
    description:
      'A stream of Server-Sent Events, one per animal added (`pet.created`), in the order they were committed, each ' +
      'with its event id as `id:`: every event after the position asked for (`since`, or the `Last-Event-ID` a ' +
      'reconnecting EventSource sends) exactly once, with no gap, whichever instance serves the stream; without ' +
      'either, the events of animals added from now on (one added before is left out, whatever its id). `status` ' +
      'keeps only the events of animals with that status. A comment line keeps an idle connection open. The stream ends when the service restarts or the client stops reading: ' +
      'reconnect with `Last-Event-ID` to resume. Events are kept for a limited time (7 days by default): a ' +
      'position older than that is 410 (and a stream that falls behind it ends with an `error` event carrying the ' +
      'same Error body). Each open stream counts as a request against the rate limit, and a caller may hold a ' +
      'bounded number of streams at once on each instance (429).',
    request: {
      query: PetEventsSearchParamsSchema,
      headers: {
        [LAST_EVENT_ID_HEADER]: {
          field: 'lastEventId',
          description:
            'The id of the last event received (sent by an EventSource when it reconnects): resume after it. It ' +
            'wins over `since` (a reconnect keeps the URL it opened with); one before `since` is 400. Empty is ' +
            'none (an EventSource that has no last event id).',
          // What the service decodes (stream-pet-events.ts): empty, or an event position spelt as `since` is.
          schema: z.union([z.literal(''), EventPositionTextSchema]),
          invalidCode: 'validation_failed',
        },
      },
    },
    input: z.prefault(PetEventsQuerySchema, {}),
    success: {
      status: 200,
      description: 'The event stream (`text/event-stream`), open until either side closes it',
      stream: { event: { id: 'PetEvent', schema: PetEventSchema }, kinds: PET_EVENT_KINDS },
      headers: {
        'X-Accel-Buffering': {
          description: '`no`: a proxy that buffers answers (nginx) passes each event on at once.',
          required: true,
        },
      },
    },
    errors: {
      400: {
        description:
          'A query parameter is invalid, repeated or unknown, `since` or `Last-Event-ID` is not an event id, or ' +
          '`Last-Event-ID` is before `since`.',
        codes: ['validation_failed'],
      },
      410: {
        description:
          'The events after the position asked for are no longer kept (older than the retention), or the position ' +
          'is past the last event (the service was reset): list the animals again (listPets), then follow from now.',
        codes: ['events_expired'],
      },
      429: {
        description:
          'Or this API key already has the most event streams an instance allows open (`EVENTS_MAX_PER_CALLER`).',
        codes: ['rate_limited'],
      },
      503: {
        description: 'Or this instance is shutting down: reconnect (to another one) with `Last-Event-ID`.',
        codes: ['service_unavailable'],
      },
    },
    stability: 'beta',
    trpc: { router: 'pets', procedure: 'events', kind: 'subscription' },
  }),
  getPet: operation({
    id: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    summary: 'Read one animal (deprecated)',
    description:
      'Deprecated: removed on 5 December 2030. Use `GET /pets?status=...` (listPets) instead. Every response of ' +
      'this operation, errors included, carries `Deprecation`, `Sunset` and `Link` headers.',
    request: { params: z.strictObject({ petId: PetIdPathSchema }) },
    input: GetPetInputSchema,
    success: { status: 200, description: 'The requested animal', body: PET_BODY },
    errors: {
      400: { description: '`petId` is not a positive int64.', codes: ['validation_failed'] },
      404: { description: 'No animal has this id.', codes: ['pet_not_found'] },
    },
    deprecated: { since: '2026-11-21', sunset: '2030-12-05', replacement: 'listPets' },
    stability: 'stable',
    trpc: { router: 'pets', procedure: 'get', kind: 'query' },
  }),
} as const satisfies Record<string, OperationContract>;

/** The operations as a list, in declaration order. */
export const operations: readonly OperationContract[] = Object.values(contract);

/** The operations served over REST, in declaration order: the routes, the OpenAPI document, the REST client. */
export const restOperations: readonly RestOperationContract[] = operations.filter(isRestOperation);
