// The interface's operations, each declared once: method, path, request parts, typed input, success response,
// every error status with its codes, headers, deprecation and tRPC name. Plain data and zod models, no server
// code: the api mounts its Express routes and tRPC procedures from it, the OpenAPI document is generated from
// it, the REST client builds its methods from it and the conformance suite reads its statuses from it.
import * as z from 'zod/mini';
import type { ErrorCode } from './error.js';
import { IDEMPOTENCY_KEY_DESCRIPTION, IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema } from './idempotency.js';
import { PositiveInt64Schema } from './int64.js';
import { NewPetSchema, PetSchema, PetsPageSchema, PetsSchema } from './pet.js';
import {
  ListPetsQuerySchema,
  ListPetsSearchParamsSchema,
  PetIdPathSchema,
  PetsPageQuerySchema,
} from './queries.js';
import { READ_AFTER_HEADER } from './read-after.js';

/** Every REST path of the interface lives under this prefix (the spec's `/v1`). */
export const API_BASE_PATH = '/v1';
/** Where the tRPC router is served, relative to the base URL (`<base>/trpc`). */
export const TRPC_ENDPOINT = '/trpc';
/** Largest request body accepted on either transport; larger is 413 `payload_too_large`. */
export const REQUEST_BODY_LIMIT_BYTES = 64 * 1024;
/** Most calls one tRPC batch may carry; more is 400 `validation_failed` before any call runs. */
export const TRPC_MAX_BATCH_SIZE = 10;

/**
 * The rule for a public base URL of the API (what clients are given, what the OpenAPI `servers` list): an
 * absolute http(s) URL whose path ends in {@link API_BASE_PATH}, without query or fragment. Trailing slashes
 * are dropped. One rule for the server's configuration and the clients' presets.
 */
export function checkApiBaseUrl(
  url: string,
): { ok: true; url: string } | { ok: false; problem: 'not-a-url' | 'not-http' | 'no-version' } {
  const parsed = URL.parse(url);
  if (parsed === null) return { ok: false, problem: 'not-a-url' };
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search || parsed.hash) {
    return { ok: false, problem: 'not-http' };
  }
  if (!parsed.pathname.replace(/\/+$/, '').endsWith(API_BASE_PATH))
    return { ok: false, problem: 'no-version' };
  return { ok: true, url: url.replace(/\/+$/, '') };
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** An operation served over REST: it has a method and a path. */
export type RestOperationContract = OperationContract & {
  readonly method: HttpMethod;
  readonly path: `/${string}`;
};

/** A response header an operation sets. */
export interface HeaderContract {
  readonly description: string;
  /** Sent on every response it is listed for. */
  readonly required: boolean;
}

/** One error status of an operation: which `Error.code`s it carries, and any headers that come with it. */
export interface ErrorResponseContract {
  readonly description: string;
  readonly codes: readonly ErrorCode[];
  readonly headers?: Readonly<Record<string, HeaderContract>>;
}

/** A model that travels as a response body, named as it appears among the OpenAPI components. */
export interface BodyContract {
  readonly id: string;
  readonly schema: z.ZodMiniType;
}

/**
 * A request header an operation reads into its typed input: over REST it arrives as the header, over tRPC (where
 * one HTTP request carries a batch of calls, so headers are shared) as the input field `field` of each call.
 */
export interface RequestHeaderContract {
  readonly field: string;
  readonly description: string;
  /** The rule for its value (documented in OpenAPI; the service applies it, answering with `invalidCode`). */
  readonly schema: z.ZodMiniType;
  /** The `Error.code` of a value that breaks the rule. */
  readonly invalidCode: ErrorCode;
}

export interface DeprecationContract {
  /** RFC 9745 `Deprecation`: the day the operation was deprecated (ISO date, UTC). */
  readonly since: string;
  /** RFC 8594 `Sunset`: the day it is removed (ISO date, UTC). */
  readonly sunset: string;
  /** The operation (id) that replaces it, linked as `rel="successor-version"`. */
  readonly replacement: string;
}

export interface OperationContract {
  /** The spec's operationId; also the REST client's method name. */
  readonly id: string;
  /** The REST method; absent for a tRPC-only operation (no route, not in the OpenAPI document). */
  readonly method?: HttpMethod;
  /** OpenAPI path template under {@link API_BASE_PATH}: `/pets/{petId}`; absent for a tRPC-only operation. */
  readonly path?: `/${string}`;
  readonly summary: string;
  readonly description: string;
  /**
   * The request as it arrives over REST: path parameters and query as text, the body as JSON. Each part is
   * validated on its own; the typed input is their union (path parameters, then query, then body fields).
   */
  readonly request: {
    readonly params?: z.ZodMiniObject;
    readonly query?: z.ZodMiniObject;
    readonly body?: BodyContract;
    /** Optional request headers, by name, each read into a field of the typed input. */
    readonly headers?: Readonly<Record<string, RequestHeaderContract>>;
  };
  /** The typed input (what tRPC callers and the service see); int64 values are `bigint` once parsed. */
  readonly input: z.ZodMiniType;
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly body?: BodyContract;
    readonly headers?: Readonly<Record<string, HeaderContract>>;
    /** A `Location` header pointing at another operation's path, filled from fields of the body. */
    readonly location?: { readonly path: `/${string}`; readonly params: Readonly<Record<string, string>> };
    /**
     * Paged over REST: the route is served by the operation `via` (same input, answering `{ items,
     * nextCursor }`); `items` is the body and a non-null `nextCursor` becomes `Link: <this URL with
     * cursor=...>; rel="next"`. The operation itself (tRPC) answers the items alone.
     */
    readonly paged?: { readonly via: string };
  };
  /** Every error status the operation can answer with. Nothing else is ever sent for it. */
  readonly errors: Readonly<Record<number, ErrorResponseContract>>;
  readonly deprecated?: DeprecationContract;
  readonly trpc: { readonly router: string; readonly procedure: string; readonly kind: 'query' | 'mutation' };
}

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
      'quota is restored>`; on a 429, `t` equals `Retry-After`.',
    required: false,
  },
};

const COMMON_ERRORS = {
  401: {
    description: 'Missing, malformed or unknown API key. Checked before anything else about the request.',
    codes: ['unauthorized'],
    headers: {
      'WWW-Authenticate': {
        description:
          '`Bearer realm="petstore"`, plus `error="invalid_token"` when a key was sent but is unknown.',
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
  500: {
    description: 'A fault on our side. Details are logged under the request id, never sent.',
    codes: ['internal_error'],
  },
  503: {
    description: 'The database is unreachable; retry after the indicated delay.',
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
      'The body was not sent as `application/json` (or `application/*+json`) in UTF-8, or without a Content-Type.',
    codes: ['unsupported_media_type'],
  },
} as const satisfies Record<number, ErrorResponseContract>;

/**
 * An operation with the errors every operation shares (401, 429, 500, 503; 413 and 415 when it takes a body)
 * added to its own, so that each entry below lists only what is particular to it and the result lists all.
 */
function operation<
  const T extends Omit<OperationContract, 'errors'> & { errors: OperationContract['errors'] },
>(spec: T): T {
  const errors = {
    ...spec.errors,
    ...COMMON_ERRORS,
    ...(spec.request.body === undefined ? {} : BODY_ERRORS),
  };
  const sorted = Object.fromEntries(Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b)));
  return { ...spec, errors: sorted };
}

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
        Location: { description: "The new animal's path, `/v1/pets/{id}`.", required: true },
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
          'printable ASCII characters (`invalid_idempotency_key`).',
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
    trpc: { router: 'pets', procedure: 'create', kind: 'mutation' },
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
    trpc: { router: 'pets', procedure: 'get', kind: 'query' },
  }),
} as const satisfies Record<string, OperationContract>;

export type Contract = typeof contract;
export type OperationId = keyof Contract;

/** The operations as a list, in declaration order. */
export const operations: readonly OperationContract[] = Object.values(contract);

/** Whether an operation is served over REST (tRPC-only operations have no method and path). */
export function isRestOperation(op: OperationContract): op is RestOperationContract {
  return op.method !== undefined && op.path !== undefined;
}

/** The operations served over REST, in declaration order: the routes, the OpenAPI document, the REST client. */
export const restOperations: readonly RestOperationContract[] = operations.filter(isRestOperation);

/** The ids of the operations served over REST. */
export type RestOperationId = {
  [Id in OperationId]: Contract[Id] extends { method: HttpMethod } ? Id : never;
}[OperationId];

/** The typed input of an operation as a caller may write it (int64 as number or bigint), and once parsed. */
export type OperationInput<Id extends OperationId> = z.input<Contract[Id]['input']>;
export type OperationParsedInput<Id extends OperationId> = z.output<Contract[Id]['input']>;
/** What an operation answers with on success (no body: `undefined`). */
export type OperationOutput<Id extends OperationId> = Contract[Id]['success'] extends {
  body: { schema: infer S extends z.ZodMiniType };
}
  ? z.output<S>
  : undefined;

/** The statuses an operation can answer with, success first. */
export function documentedStatuses(op: OperationContract): number[] {
  return [op.success.status, ...Object.keys(op.errors).map(Number)];
}

/** The names of an operation's path parameters, in template order (`/pets/{petId}` -> `['petId']`). */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
}

/**
 * A path template as a pattern matching its concrete paths, each parameter a capture group in template order:
 * `/pets/{petId}` -> `^/pets/([^/]+)$` (with `prefix`, e.g. API_BASE_PATH, in front).
 */
export function pathPattern(path: string, prefix = ''): RegExp {
  const source = `${prefix}${path}`
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{[^}]+\\?\}/g, '([^/]+)');
  return new RegExp(`^${source}$`);
}

/** An operation's tRPC procedure path: `pets.list`. */
export function trpcPath(op: Pick<OperationContract, 'trpc'>): string {
  return `${op.trpc.router}.${op.trpc.procedure}`;
}

/** A path template filled in: `/pets/{petId}` with `{ petId: 7n }` -> `/pets/7` (each value percent-encoded). */
export function fillPath(path: string, values: Readonly<Record<string, unknown>>): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(String(values[name])));
}

const httpDate = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toUTCString();

/**
 * The headers every response of a deprecated operation carries: RFC 9745 `Deprecation` (`@<unix seconds>`),
 * RFC 8594 `Sunset` (an HTTP date) and a `Link` to the replacement.
 */
export function deprecationHeaders(op: OperationContract): Record<string, string> | undefined {
  const deprecated = op.deprecated;
  if (deprecated === undefined) return undefined;
  const replacement = restOperations.find((candidate) => candidate.id === deprecated.replacement);
  if (replacement === undefined) throw new Error(`${op.id} is replaced by unknown ${deprecated.replacement}`);
  return {
    Deprecation: `@${Date.parse(`${deprecated.since}T00:00:00Z`) / 1000}`,
    Sunset: httpDate(deprecated.sunset),
    Link: `<${API_BASE_PATH}${replacement.path}>; rel="successor-version"`,
  };
}

/** Headers a deprecated operation sets, as the document describes them. */
export const DEPRECATION_HEADER_CONTRACTS: Readonly<Record<string, HeaderContract>> = {
  Deprecation: {
    description: 'RFC 9745: the operation is deprecated, as an `@<unix seconds>` date.',
    required: true,
  },
  Sunset: { description: 'RFC 8594: when the operation is removed, as an HTTP date.', required: true },
  Link: { description: 'The replacement, `rel="successor-version"`.', required: true },
};

/** Where a validation message points for this operation's input: the REST part its fields come from. */
export function inputSubject(op: OperationContract): 'field' | 'query parameter' | 'path parameter' {
  if (op.request.body !== undefined || op.path === undefined) return 'field';
  if (op.request.query !== undefined) return 'query parameter';
  return 'path parameter';
}
