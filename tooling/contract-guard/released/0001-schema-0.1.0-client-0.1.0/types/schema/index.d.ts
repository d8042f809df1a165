import * as z from "zod/mini";

// build/types/error.d.ts
/**
 * The codes this service puts in `Error.code`. The set is stable: a code is never renamed or reused for another
 * meaning; a new one may be added in a minor version, so clients should treat an unknown code by its `status`.
 */
declare const ERROR_CODES: {
  readonly validation_failed: 400;
  readonly malformed_json: 400; /** Not valid HTTP/1.1 (an unknown method, a bad header, conflicting lengths): answered before any route. */
  readonly malformed_request: 400;
  readonly unauthorized: 401;
  readonly pet_not_found: 404;
  readonly route_not_found: 404;
  readonly method_not_allowed: 405; /** The client took longer than the server's request or headers timeout to send its request. */
  readonly request_timeout: 408;
  readonly payload_too_large: 413;
  readonly unsupported_media_type: 415; /** An `Expect` header other than `100-continue`. */
  readonly expectation_failed: 417;
  readonly rate_limited: 429; /** The request line and headers together exceed the server's limit. */
  readonly headers_too_large: 431;
  readonly internal_error: 500;
  readonly service_unavailable: 503;
};
type ErrorCode = keyof typeof ERROR_CODES;
declare const ErrorSchema: z.ZodMiniObject<{
  code: z.ZodMiniString<string>;
  message: z.ZodMiniString<string>;
  status: z.ZodMiniInt;
}, z.core.$strict>;
type ApiError = z.output<typeof ErrorSchema>;
/** Every REST path of the interface lives under this prefix (the spec's `/v1`). */
declare const API_BASE_PATH = "/v1";
/** Where the tRPC router is served, relative to the base URL (`<base>/trpc`). */
declare const TRPC_ENDPOINT = "/trpc";
/** Largest request body accepted on either transport; larger is 413 `payload_too_large`. */
declare const REQUEST_BODY_LIMIT_BYTES: number;
/** Most calls one tRPC batch may carry; more is 400 `validation_failed` before any call runs. */
declare const TRPC_MAX_BATCH_SIZE = 10;
/**
 * The rule for a public base URL of the API (what clients are given, what the OpenAPI `servers` list): an
 * absolute http(s) URL whose path ends in {@link API_BASE_PATH}, without query or fragment. Trailing slashes
 * are dropped. One rule for the server's configuration and the clients' presets.
 */
declare function checkApiBaseUrl(url: string): {
  ok: true;
  url: string;
} | {
  ok: false;
  problem: 'not-a-url' | 'not-http' | 'no-version';
};
type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** An operation served over REST: it has a method and a path. */
type RestOperationContract = OperationContract & {
  readonly method: HttpMethod;
  readonly path: `/${string}`;
};
/** A response header an operation sets. */
interface HeaderContract {
  readonly description: string;
  /** Sent on every response it is listed for. */
  readonly required: boolean;
}
/** One error status of an operation: which `Error.code`s it carries, and any headers that come with it. */
interface ErrorResponseContract {
  readonly description: string;
  readonly codes: readonly ErrorCode[];
  readonly headers?: Readonly<Record<string, HeaderContract>>;
}
/** A model that travels as a response body, named as it appears among the OpenAPI components. */
interface BodyContract {
  readonly id: string;
  readonly schema: z.ZodMiniType;
}
interface DeprecationContract {
  /** RFC 9745 `Deprecation`: the day the operation was deprecated (ISO date, UTC). */
  readonly since: string;
  /** RFC 8594 `Sunset`: the day it is removed (ISO date, UTC). */
  readonly sunset: string;
  /** The operation (id) that replaces it, linked as `rel="successor-version"`. */
  readonly replacement: string;
}
interface OperationContract {
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
  };
  /** The typed input (what tRPC callers and the service see); int64 values are `bigint` once parsed. */
  readonly input: z.ZodMiniType;
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly body?: BodyContract;
    readonly headers?: Readonly<Record<string, HeaderContract>>; /** A `Location` header pointing at another operation's path, filled from fields of the body. */
    readonly location?: {
      readonly path: `/${string}`;
      readonly params: Readonly<Record<string, string>>;
    };
    /**
     * Paged over REST: the route is served by the operation `via` (same input, answering `{ items,
     * nextCursor }`); `items` is the body and a non-null `nextCursor` becomes `Link: <this URL with
     * cursor=...>; rel="next"`. The operation itself (tRPC) answers the items alone.
     */
    readonly paged?: {
      readonly via: string;
    };
  };
  /** Every error status the operation can answer with. Nothing else is ever sent for it. */
  readonly errors: Readonly<Record<number, ErrorResponseContract>>;
  readonly deprecated?: DeprecationContract;
  readonly trpc: {
    readonly router: string;
    readonly procedure: string;
    readonly kind: 'query' | 'mutation';
  };
}
/** getPet's typed input: the id of the pet. */
declare const GetPetInputSchema: z.ZodMiniObject<{
  petId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
}, z.core.$strict>;
/** The operations of the interface, keyed by operationId. */
declare const contract: {
  readonly listPets: {
    readonly id: "listPets";
    readonly method: "GET";
    readonly path: "/pets";
    readonly summary: "List animals";
    readonly description: string;
    readonly request: {
      query: z.ZodMiniObject<{
        limit: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniDefault<z.ZodMiniInt>>;
        status: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniOptional<z.ZodMiniEnum<{
          available: "available";
          pending: "pending";
          sold: "sold";
        }>>>;
        cursor: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniOptional<z.ZodMiniString<string>>>;
      }, z.core.$strict>;
    };
    readonly input: z.ZodMiniPrefault<z.ZodMiniObject<{
      limit: z.ZodMiniDefault<z.ZodMiniInt>;
      status: z.ZodMiniOptional<z.ZodMiniEnum<{
        available: "available";
        pending: "pending";
        sold: "sold";
      }>>;
      cursor: z.ZodMiniOptional<z.ZodMiniString<string>>;
    }, z.core.$strict>>;
    readonly success: {
      readonly status: 200;
      readonly description: "List of animals";
      readonly body: {
        readonly id: 'Pets';
        readonly schema: z.ZodMiniArray<z.ZodMiniObject<{
          id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
          name: z.ZodMiniString<string>;
          categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
          status: z.ZodMiniOptional<z.ZodMiniEnum<{
            available: "available";
            pending: "pending";
            sold: "sold";
          }>>;
        }, z.core.$strict>>;
      };
      readonly headers: {
        readonly Link: {
          readonly description: "RFC 8288 `<absolute URL of the next page>; rel=\"next\"`, present only when more animals may follow.";
          readonly required: false;
        };
      };
      readonly paged: {
        readonly via: "pagePets";
      };
    };
    readonly errors: {
      readonly 400: {
        readonly description: string;
        readonly codes: readonly ["validation_failed"];
      };
    };
    readonly trpc: {
      readonly router: "pets";
      readonly procedure: "list";
      readonly kind: "query";
    };
  };
  readonly pagePets: {
    readonly id: "pagePets";
    readonly summary: "One page of animals (tRPC only)";
    readonly description: string;
    readonly request: {};
    readonly input: z.ZodMiniPrefault<z.ZodMiniObject<{
      limit: z.ZodMiniDefault<z.ZodMiniInt>;
      status: z.ZodMiniOptional<z.ZodMiniEnum<{
        available: "available";
        pending: "pending";
        sold: "sold";
      }>>;
      cursor: z.ZodMiniOptional<z.ZodMiniString<string>>;
    }, z.core.$strict>>;
    readonly success: {
      readonly status: 200;
      readonly description: "A page of animals";
      readonly body: {
        readonly id: "PetsPage";
        readonly schema: z.ZodMiniObject<{
          items: z.ZodMiniArray<z.ZodMiniObject<{
            id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
            name: z.ZodMiniString<string>;
            categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
            status: z.ZodMiniOptional<z.ZodMiniEnum<{
              available: "available";
              pending: "pending";
              sold: "sold";
            }>>;
          }, z.core.$strict>>;
          nextCursor: z.ZodMiniNullable<z.ZodMiniString<string>>;
        }, z.core.$strict>;
      };
    };
    readonly errors: {
      readonly 400: {
        readonly description: "An input field is invalid, or `cursor` is not a cursor of ours for this `status`.";
        readonly codes: readonly ["validation_failed"];
      };
    };
    readonly trpc: {
      readonly router: "pets";
      readonly procedure: "page";
      readonly kind: "query";
    };
  };
  readonly createPet: {
    readonly id: "createPet";
    readonly method: "POST";
    readonly path: "/pets";
    readonly summary: "Add an animal";
    readonly description: "Adds a new animal; the service assigns its `id`. The body must be `application/json`.";
    readonly request: {
      readonly body: {
        readonly id: "NewPet";
        readonly schema: z.ZodMiniObject<{
          name: z.ZodMiniString<string>;
          categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
          status: z.ZodMiniOptional<z.ZodMiniEnum<{
            available: "available";
            pending: "pending";
            sold: "sold";
          }>>;
        }, z.core.$strict>;
      };
    };
    readonly input: z.ZodMiniObject<{
      name: z.ZodMiniString<string>;
      categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
      status: z.ZodMiniOptional<z.ZodMiniEnum<{
        available: "available";
        pending: "pending";
        sold: "sold";
      }>>;
    }, z.core.$strict>;
    readonly success: {
      readonly status: 201;
      readonly description: "Animal added; the body carries the assigned id";
      readonly body: {
        readonly id: 'Pet';
        readonly schema: z.ZodMiniObject<{
          id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
          name: z.ZodMiniString<string>;
          categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
          status: z.ZodMiniOptional<z.ZodMiniEnum<{
            available: "available";
            pending: "pending";
            sold: "sold";
          }>>;
        }, z.core.$strict>;
      };
      readonly headers: {
        readonly Location: {
          readonly description: "The new animal's path, `/v1/pets/{id}`.";
          readonly required: true;
        };
      };
      readonly location: {
        readonly path: "/pets/{petId}";
        readonly params: {
          readonly petId: "id";
        };
      };
    };
    readonly errors: {
      readonly 400: {
        readonly description: string;
        readonly codes: readonly ["validation_failed", "malformed_json"];
      };
    };
    readonly trpc: {
      readonly router: "pets";
      readonly procedure: "create";
      readonly kind: "mutation";
    };
  };
  readonly getPet: {
    readonly id: "getPet";
    readonly method: "GET";
    readonly path: "/pets/{petId}";
    readonly summary: "Read one animal (deprecated)";
    readonly description: string;
    readonly request: {
      params: z.ZodMiniObject<{
        petId: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>>;
      }, z.core.$strict>;
    };
    readonly input: z.ZodMiniObject<{
      petId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
    }, z.core.$strict>;
    readonly success: {
      readonly status: 200;
      readonly description: "The requested animal";
      readonly body: {
        readonly id: 'Pet';
        readonly schema: z.ZodMiniObject<{
          id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
          name: z.ZodMiniString<string>;
          categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
          status: z.ZodMiniOptional<z.ZodMiniEnum<{
            available: "available";
            pending: "pending";
            sold: "sold";
          }>>;
        }, z.core.$strict>;
      };
    };
    readonly errors: {
      readonly 400: {
        readonly description: "`petId` is not a positive int64.";
        readonly codes: readonly ["validation_failed"];
      };
      readonly 404: {
        readonly description: "No animal has this id.";
        readonly codes: readonly ["pet_not_found"];
      };
    };
    readonly deprecated: {
      readonly since: "2026-11-21";
      readonly sunset: "2030-12-05";
      readonly replacement: "listPets";
    };
    readonly trpc: {
      readonly router: "pets";
      readonly procedure: "get";
      readonly kind: "query";
    };
  };
};
type Contract = typeof contract;
type OperationId = keyof Contract;
/** The operations as a list, in declaration order. */
declare const operations: readonly OperationContract[];
/** Whether an operation is served over REST (tRPC-only operations have no method and path). */
declare function isRestOperation(op: OperationContract): op is RestOperationContract;
/** The operations served over REST, in declaration order: the routes, the OpenAPI document, the REST client. */
declare const restOperations: readonly RestOperationContract[];
/** The ids of the operations served over REST. */
type RestOperationId = { [Id in OperationId]: Contract[Id] extends {
  method: HttpMethod;
} ? Id : never }[OperationId];
/** The typed input of an operation as a caller may write it (int64 as number or bigint), and once parsed. */
type OperationInput<Id extends OperationId> = z.input<Contract[Id]['input']>;
type OperationParsedInput<Id extends OperationId> = z.output<Contract[Id]['input']>;
/** What an operation answers with on success (no body: `undefined`). */
type OperationOutput<Id extends OperationId> = Contract[Id]['success'] extends {
  body: {
    schema: infer S extends z.ZodMiniType;
  };
} ? z.output<S> : undefined;
/** The statuses an operation can answer with, success first. */
declare function documentedStatuses(op: OperationContract): number[];
/** The names of an operation's path parameters, in template order (`/pets/{petId}` -> `['petId']`). */
declare function pathParameterNames(path: string): string[];
/**
 * A path template as a pattern matching its concrete paths, each parameter a capture group in template order:
 * `/pets/{petId}` -> `^/pets/([^/]+)$` (with `prefix`, e.g. API_BASE_PATH, in front).
 */
declare function pathPattern(path: string, prefix?: string): RegExp;
/** An operation's tRPC procedure path: `pets.list`. */
declare function trpcPath(op: Pick<OperationContract, 'trpc'>): string;
/** A path template filled in: `/pets/{petId}` with `{ petId: 7n }` -> `/pets/7` (each value percent-encoded). */
declare function fillPath(path: string, values: Readonly<Record<string, unknown>>): string;
/**
 * The headers every response of a deprecated operation carries: RFC 9745 `Deprecation` (`@<unix seconds>`),
 * RFC 8594 `Sunset` (an HTTP date) and a `Link` to the replacement.
 */
declare function deprecationHeaders(op: OperationContract): Record<string, string> | undefined;
/** Headers a deprecated operation sets, as the document describes them. */
declare const DEPRECATION_HEADER_CONTRACTS: Readonly<Record<string, HeaderContract>>;
/** Where a validation message points for this operation's input: the REST part its fields come from. */
declare function inputSubject(op: OperationContract): 'field' | 'query parameter' | 'path parameter';
/** Smallest and largest values of a signed 64-bit integer (`format: int64` in the interface). */
declare const INT64_MIN: bigint;
declare const INT64_MAX: bigint;
/**
 * An int64 value. JavaScript numbers are exact only up to 2^53, so int64 values are `bigint` once parsed:
 * inputs may be a safe-integer `number` or a `bigint`, the output is always a `bigint`, and a value is never
 * rounded on the way. JSON text carrying larger integers must be read with {@link parseJson} (which keeps
 * them exact) instead of `JSON.parse` (which rounds them before any schema sees them).
 */
declare const Int64Schema: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
/** A positive int64, the form of every identifier the service assigns. */
declare const PositiveInt64Schema: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
type Int64 = z.output<typeof Int64Schema>;
type Int64Input = z.input<typeof Int64Schema>;
/**
 * One line a person can act on, from a zod error: `categoryId: must be an integer (int64); name: is required`.
 * `subject` names what was validated ("field" for a body, "query parameter" for a query string) and is used for
 * unknown keys: `unknown field "id"`.
 */
declare function describeIssues(error: z.core.$ZodError, subject: string): string;
/**
 * `JSON.parse`, with every integer exact and every object key given once:
 * - an integer too large for a double (beyond ±2^53) becomes an exact `bigint` instead of a rounded `number`;
 * - a number whose text is not exactly the integer its double holds (`4.0000000000000000001` and `1e-400`, which
 *   `JSON.parse` turns into 4 and 0) becomes `NaN`, which no integer schema accepts: exact or refused, never
 *   silently changed. Text that denotes an integer exactly in another form (`7.0`, `7e0`, `7000e-3`) is that
 *   integer. Non-integers (`1.5`) are left as `JSON.parse` reads them;
 * - an object that names a key twice (`{"name":"a","name":"b"}`) is refused: `JSON.parse` keeps the last value,
 *   other parsers keep the first, so one body could mean two pets (I-JSON, RFC 7493, forbids it).
 * Its errors are `SyntaxError`s.
 */
declare function parseJson(text: string): unknown;
/** `JSON.stringify`, except that a `bigint` is written as a plain JSON number with every digit. */
declare function stringifyJson(value: unknown): string;
/** The version of the interface description (the spec's "1.0.0"); not the npm version of this package. */
declare const OPENAPI_INFO_VERSION = "1.0.0";
interface OpenApiServer {
  /** Absolute (`https://api.example.com/v1`) or relative to the document (`/v1`); it ends with `/v1`. */
  url: string;
  description?: string;
}
interface OpenApiOptions {
  /**
   * Where the API is served, first one preferred. Default: `[{ url: '/v1' }]`, which OpenAPI resolves
   * against the document's own URL, i.e. "the server that served this document".
   */
  servers?: readonly OpenApiServer[];
}
/** JSON values, except that int64 bounds are `bigint` so that they stay exact (write it with `stringifyJson`). */
type OpenApiDocument = {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    [key: string]: unknown;
  };
  servers: OpenApiServer[];
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};
/**
 * The JSON Schema of a model as this package renders it into the document (z.toJSONSchema with int64 rendered as
 * such): `input` is what a caller may send, `output` what the service answers. The contract guard renders the
 * tRPC operations with it.
 */
declare function modelJsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Record<string, unknown>;
/**
 * The OpenAPI 3.1 document of the Pet Store interface (version 1.0.0). int64 bounds are `bigint`: write the
 * document with {@link stringifyJson} (or {@link createOpenApiJson}), not `JSON.stringify`.
 */
declare function createOpenApiDocument(options?: OpenApiOptions): OpenApiDocument;
/** The document as JSON text with int64 bounds written exactly; `space` indents it like `JSON.stringify`. */
declare function createOpenApiJson(options?: OpenApiOptions, space?: number): string;
declare const PET_STATUSES: readonly ['available', 'pending', 'sold'];
/** Availability of an animal. */
declare const PetStatusSchema: z.ZodMiniEnum<{
  available: "available";
  pending: "pending";
  sold: "sold";
}>;
type PetStatus = z.output<typeof PetStatusSchema>;
/**
 * Longest accepted name, in Unicode code points (characters): what zod's `max`, JSON Schema's `maxLength` and
 * PostgreSQL's `char_length` all count, so the rule, the document and the database agree. 255 emoji (510 UTF-16
 * code units) fit; 256 characters of any kind do not. The interface leaves the bound open.
 */
declare const PET_NAME_MAX_LENGTH = 255;
/**
 * The animal's name, stored and returned exactly as sent (never trimmed or normalised). Our decisions where
 * the interface is silent: 1..255 characters, at least one of them not whitespace, valid Unicode (no lone
 * surrogates) and no NUL character, which PostgreSQL text cannot hold. Names need not be unique.
 */
declare const PetNameSchema: z.ZodMiniString<string>;
/**
 * Request body of createPet. Unknown fields are refused rather than dropped, so a misspelt field
 * (`stauts`) or a client-chosen `id` is an error the caller sees instead of a silent surprise.
 */
declare const NewPetSchema: z.ZodMiniObject<{
  name: z.ZodMiniString<string>;
  categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
  status: z.ZodMiniOptional<z.ZodMiniEnum<{
    available: "available";
    pending: "pending";
    sold: "sold";
  }>>;
}, z.core.$strict>;
/** A validated NewPet (int64 fields are `bigint`). */
type NewPet = z.output<typeof NewPetSchema>;
/** What a caller may pass as a NewPet (int64 fields as `number` or `bigint`). */
type NewPetInput = z.input<typeof NewPetSchema>;
/**
 * An animal as the service returns it: every NewPet field plus the `id` the service assigned.
 * `status` is absent, never `null`, when the animal has none.
 */
declare const PetSchema: z.ZodMiniObject<{
  id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
  name: z.ZodMiniString<string>;
  categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
  status: z.ZodMiniOptional<z.ZodMiniEnum<{
    available: "available";
    pending: "pending";
    sold: "sold";
  }>>;
}, z.core.$strict>;
type Pet = z.output<typeof PetSchema>;
type PetInput = z.input<typeof PetSchema>;
/** The body of listPets: a bare JSON array of Pet. */
declare const PetsSchema: z.ZodMiniArray<z.ZodMiniObject<{
  id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
  name: z.ZodMiniString<string>;
  categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
  status: z.ZodMiniOptional<z.ZodMiniEnum<{
    available: "available";
    pending: "pending";
    sold: "sold";
  }>>;
}, z.core.$strict>>;
type Pets = z.output<typeof PetsSchema>;
/** One page of pets (tRPC `pets.page`): the pets, and the cursor of the next page or null on the last one. */
declare const PetsPageSchema: z.ZodMiniObject<{
  items: z.ZodMiniArray<z.ZodMiniObject<{
    id: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>;
    name: z.ZodMiniString<string>;
    categoryId: z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>;
    status: z.ZodMiniOptional<z.ZodMiniEnum<{
      available: "available";
      pending: "pending";
      sold: "sold";
    }>>;
  }, z.core.$strict>>;
  nextCursor: z.ZodMiniNullable<z.ZodMiniString<string>>;
}, z.core.$strict>;
type PetsPage = z.output<typeof PetsPageSchema>;
/** Bounds and default of listPets' `limit`, as the interface fixes them. */
declare const LIST_LIMIT: {
  readonly min: 1;
  readonly max: 100;
  readonly default: 20;
};
/** Longest cursor accepted; longer text is refused before anything decodes it. */
declare const CURSOR_MAX_LENGTH = 512;
/**
 * A paging cursor as the client sees it: opaque text it got from a `Link: <...>; rel="next"` header or a
 * `nextCursor`, never built by hand. Only its length is checked here; the service decodes and verifies it.
 */
declare const CursorSchema: z.ZodMiniString<string>;
declare const ListLimitSchema: z.ZodMiniDefault<z.ZodMiniInt>;
/**
 * The listPets query as typed values (what tRPC and the clients pass). An absent `limit` means 20, an absent
 * `status` means every status. Unknown keys are refused: a caller sending `offset` must learn that it is not
 * supported rather than receive the first page again.
 */
declare const ListPetsQuerySchema: z.ZodMiniObject<{
  limit: z.ZodMiniDefault<z.ZodMiniInt>;
  status: z.ZodMiniOptional<z.ZodMiniEnum<{
    available: "available";
    pending: "pending";
    sold: "sold";
  }>>;
  cursor: z.ZodMiniOptional<z.ZodMiniString<string>>;
}, z.core.$strict>;
type ListPetsQuery = z.output<typeof ListPetsQuerySchema>;
type ListPetsQueryInput = z.input<typeof ListPetsQuerySchema>;
/**
 * The listPets query as it arrives in a URL (string values, possibly repeated), decoded to {@link ListPetsQuery}.
 * `limit` must be written as a plain decimal integer: `1.5`, `1e1`, `0x10` and `abc` are refused.
 */
declare const ListPetsSearchParamsSchema: z.ZodMiniObject<{
  limit: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniDefault<z.ZodMiniInt>>;
  status: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniOptional<z.ZodMiniEnum<{
    available: "available";
    pending: "pending";
    sold: "sold";
  }>>>;
  cursor: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniOptional<z.ZodMiniString<string>>>;
}, z.core.$strict>;
/**
 * getPet's `{petId}` path segment, decoded to the id. It must be a decimal positive int64: `abc`, `0`, `-1`,
 * `1.5` and values past 2^63-1 are refused (they can name no pet).
 */
declare const PetIdPathSchema: z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniPipe<z.ZodMiniUnion<readonly [z.ZodMiniInt, z.ZodMiniBigInt<bigint>]>, z.ZodMiniTransform<bigint, number | bigint>>, z.ZodMiniBigInt<bigint>>, z.ZodMiniBigInt<bigint>>>;
/** Throws when this runtime lacks what the int64-exact JSON helpers need (Node < 22). */
declare function assertExactJsonSupport(): void;
export { API_BASE_PATH, type ApiError, type BodyContract, CURSOR_MAX_LENGTH, type Contract, CursorSchema, DEPRECATION_HEADER_CONTRACTS, type DeprecationContract, ERROR_CODES, type ErrorCode, type ErrorResponseContract, ErrorSchema, GetPetInputSchema, type HeaderContract, type HttpMethod, INT64_MAX, INT64_MIN, type Int64, type Int64Input, Int64Schema, LIST_LIMIT, ListLimitSchema, type ListPetsQuery, type ListPetsQueryInput, ListPetsQuerySchema, ListPetsSearchParamsSchema, type NewPet, type NewPetInput, NewPetSchema, OPENAPI_INFO_VERSION, type OpenApiDocument, type OpenApiOptions, type OpenApiServer, type OperationContract, type OperationId, type OperationInput, type OperationOutput, type OperationParsedInput, PET_NAME_MAX_LENGTH, PET_STATUSES, type Pet, PetIdPathSchema, type PetInput, PetNameSchema, PetSchema, type PetStatus, PetStatusSchema, type Pets, type PetsPage, PetsPageSchema, PetsSchema, PositiveInt64Schema, REQUEST_BODY_LIMIT_BYTES, type RestOperationContract, type RestOperationId, TRPC_ENDPOINT, TRPC_MAX_BATCH_SIZE, assertExactJsonSupport, checkApiBaseUrl, contract, createOpenApiDocument, createOpenApiJson, deprecationHeaders, describeIssues, documentedStatuses, fillPath, inputSubject, isRestOperation, modelJsonSchema, operations, parseJson, pathParameterNames, pathPattern, restOperations, stringifyJson, trpcPath };