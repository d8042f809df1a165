import { ApiError, ApiError as ApiError$1, Contract, Int64Input, ListPetsQueryInput, ListPetsQueryInput as ListPetsQueryInput$1, NewPetInput, NewPetInput as NewPetInput$1, OperationId, OperationInput, OperationOutput, OperationParsedInput, Pet, Pet as Pet$1, PetStatus, PetStatus as PetStatus$1, PetsPage, RestOperationId } from '../schema/index.js';
import * as z$1 from "zod/mini";
import { TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import { z } from "zod";
import { TRPCClient } from "@trpc/client";

// build/types/api-error-of.d.ts
/**
 * The service's `Error` body behind a failure from either client: a {@link PetStoreApiError} of kind `api`
 * (REST) or a `TRPCClientError` whose `data.error` carries it (tRPC). Lets a caller handle both transports with
 * one code path. Undefined for anything else (network failures, bugs).
 */
declare function apiErrorOf(failure: unknown): ApiError$1 | undefined;
/**
 * What went wrong, so a caller can branch without parsing messages:
 * - `api`: the service answered with its `Error` body (`error`, `status` set);
 * - `network`: no HTTP reply at all (refused, reset, DNS, aborted); `cause` holds the original error;
 * - `non_json`: a reply whose body is not JSON, typically an HTML page from a proxy; `responseText` holds it;
 * - `invalid_body`: JSON that is not what the interface promises (a success body that fails the schema, or an
 *   error status without an `Error` body); `responseText` holds it.
 */
type PetStoreErrorKind = 'api' | 'network' | 'non_json' | 'invalid_body';
interface PetStoreApiErrorInit {
  status?: number | undefined;
  error?: ApiError$1 | undefined;
  responseText?: string | undefined;
  cause?: unknown;
}
/** The one error every REST client call throws. */
declare class PetStoreApiError extends Error {
  name: string;
  readonly kind: PetStoreErrorKind;
  /** The HTTP status of the reply; undefined for `network`. */
  readonly status: number | undefined;
  /** The service's `Error` body; set exactly when `kind` is `api`. */
  readonly error: ApiError$1 | undefined;
  /** The reply's body as received, when it was not an `Error` body (`non_json`, `invalid_body`). */
  readonly responseText: string | undefined;
  constructor(kind: PetStoreErrorKind, message: string, init?: PetStoreApiErrorInit);
  /** The service's error code (`pet_not_found`, …), or the kind when the service sent none. */
  get code(): string;
}
/** The two deployments the interface names. */
type PetStoreEnvironment = 'production' | 'staging';
/**
 * Where the base URL of each environment is read from when a caller picks one by name. The interface names
 * production and staging but gives no hosts, so this package invents none: the deployment tells its apps.
 */
declare const ENVIRONMENT_VARIABLES: {
  readonly production: 'PETSTORE_PRODUCTION_URL';
  readonly staging: 'PETSTORE_STAGING_URL';
};
/** Either an explicit base URL (ending in `/v1`) or an environment whose URL is read from its variable. */
type PetStoreTarget = {
  baseUrl: string;
  environment?: never;
} | {
  environment: PetStoreEnvironment;
  baseUrl?: never;
};
type Environment = Record<string, string | undefined>;
/**
 * The base URL to call, without a trailing slash. `env` defaults to `process.env` and is read only when an
 * environment is named. Throws a TypeError naming the problem (unset variable, not http(s), not ending in /v1):
 * these are configuration mistakes, found when the client is created rather than on the first call.
 */
declare function resolveBaseUrl(target: PetStoreTarget, env?: Environment): string;
type RestClientOptions = PetStoreTarget & {
  /** Sent as `Authorization: Bearer <apiKey>` on every call. */apiKey: string; /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
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
interface RestClient extends ContractRestClient {
  /** listPets: `GET /pets`, ordered by id ascending; `limit` 1..100 (default 20), optional `status` filter. */
  listPets(query?: ListPetsQueryInput$1): Promise<Pet$1[]>;
  /** createPet: `POST /pets`; returns the stored pet with its new `id`. */
  createPet(newPet: NewPetInput$1): Promise<Pet$1>;
  /**
   * getPet: `GET /pets/{petId}`.
   * @deprecated The service removes this operation on 5 December 2030 (`Sunset` header). Use
   * {@link RestClient.listPets} with the `status` filter instead.
   */
  getPet(petId: Int64Input): Promise<Pet$1>;
  /**
   * One page of listPets: the pets, and the cursor of the next page (from the response's
   * `Link: <...>; rel="next"`), null on the last page. Pass it back as `cursor` for the next page.
   */
  listPetsPage(query?: ListPetsQueryInput$1): Promise<PetsPageResult>;
  /**
   * Every pet (of `status`, when given), in id order, fetched `limit` at a time (default 100) by following
   * `Link: rel="next"` to the last page. Pets that existed when the walk started are each yielded exactly once.
   */
  allPets(query?: {
    status?: PetStatus$1;
    limit?: number;
  }): AsyncGenerator<Pet$1, void, undefined>;
}
/** A page of pets over REST: the body, and the cursor of the next page from its `Link` header (or null). */
interface PetsPageResult {
  pets: Pet$1[];
  nextCursor: string | null;
}
/** The `cursor` of the `rel="next"` URL in a `Link` header (RFC 8288), or null when there is none. */
declare function nextCursorFromLink(link: string | null): string | null;
/** The REST part an operation's path parameter comes from, when it has one. */
type ParamName<Id extends RestOperationId> = Contract[Id]['request'] extends {
  params: z$1.ZodMiniObject<infer Shape>;
} ? keyof Shape & string : never;
/** A client method's argument: the operation's body, else its only path parameter, else its (optional) query. */
type ArgumentsOf<Id extends RestOperationId> = Contract[Id]['request'] extends {
  body: object;
} ? [body: OperationInput<Id>] : [ParamName<Id>] extends [never] ? [query?: OperationInput<Id>] : [value: OperationInput<Id>[ParamName<Id> & keyof OperationInput<Id>]];
/** One method per operation of the contract, typed from it. */
type ContractRestClient = { [Id in RestOperationId]: (...args: ArgumentsOf<Id>) => Promise<OperationOutput<Id>> };
/**
 * A REST client for the service at `baseUrl` (or the URL of `environment`). Inputs are not checked here: the
 * service checks them, so a mistake gets the same `Error` body from REST, from tRPC and from any other client.
 * int64 values are exact both ways (`bigint` in and out, JSON numbers with every digit on the wire).
 */
declare function createRestClient(options: RestClientOptions): RestClient;
/** Who is calling, by key: `env:<n>` for the n-th API_KEYS entry, `db:<id>` for an issued key. Never the key. */
interface Caller {
  subject: string;
}
/** Per-request context. The caller was admitted (API key, rate limit) once for the whole HTTP request. */
interface TrpcContext {
  caller: Caller;
  /** Called with any error that is not the caller's fault, for the logs. */
  onInternalError: (error: unknown, path: string | undefined) => void;
}
/**
 * What serves the contract: one function per operation, keyed by operationId, taking the operation's parsed
 * input. REST and tRPC are both mounted from the contract over the same handlers, so a new operation is a
 * contract entry plus a service function, and both transports serve it.
 */
type OperationHandlers = { [Id in OperationId]: (input: OperationParsedInput<Id>) => Promise<OperationOutput<Id>> };
type OperationProcedure<Id extends OperationId> = {
  input: z.input<Contract[Id]['input']>;
  output: OperationOutput<Id>;
  meta: object;
};
type ProcedureOf<Id extends OperationId> = Contract[Id]['trpc']['kind'] extends 'mutation' ? TRPCMutationProcedure<OperationProcedure<Id>> : TRPCQueryProcedure<OperationProcedure<Id>>;
type RouterNames = Contract[OperationId]['trpc']['router'];
/** `{ pets: { list: <query>, create: <mutation>, get: <query> } }`, typed from the contract. */
type AppRouterRecord = { [R in RouterNames]: { [Id in OperationId as Contract[Id]['trpc']['router'] extends R ? Contract[Id]['trpc']['procedure'] : never]: ProcedureOf<Id> } };
/** The tRPC router over the operation handlers. */
declare function createAppRouter(handlers: OperationHandlers): import("@trpc/server").TRPCBuiltRouter<{
  ctx: TrpcContext;
  meta: object;
  errorShape: {
    code: import("@trpc/server").TRPC_ERROR_CODE_NUMBER;
    message: string;
    data: {
      code: import("@trpc/server").TRPC_ERROR_CODE_KEY;
      httpStatus: number;
      path?: string;
      error: {
        code: string;
        message: string;
        status: number;
      };
    };
  };
  transformer: true;
}, import("@trpc/server").TRPCDecorateCreateRouterOptions<AppRouterRecord>>;
type AppRouter = ReturnType<typeof createAppRouter>;
/** The tRPC client, typed by the service's router: `client.pets.list.query(...)`, `client.pets.create.mutate(...)`. */
type PetStoreTrpcClient = TRPCClient<AppRouter>;
type TrpcClientOptions = ({
  /** The tRPC endpoint, `<base URL>/trpc`, for example `http://127.0.0.1:3000/v1/trpc`. */url: string;
  environment?: never;
} | {
  /** Use `<base URL of the environment>/trpc`; see `ENVIRONMENT_VARIABLES`. */environment: PetStoreEnvironment;
  url?: never;
}) & {
  /** Sent as `Authorization: Bearer <apiKey>` on every request. */apiKey: string; /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch; /** Send the calls made in the same tick in one request (default true). */
  batch?: boolean;
};
/**
 * A tRPC client for internal TypeScript apps. Inputs and results are typed by the service's `AppRouter`; int64
 * values travel as `bigint` (superjson). A failure is a `TRPCClientError` whose `data.error` is the same
 * `Error` body REST would have sent; `apiErrorOf(error)` reads it for either client.
 */
declare function createTrpcClient(options: TrpcClientOptions): PetStoreTrpcClient;
export { type ApiError, type AppRouter, ENVIRONMENT_VARIABLES, type ListPetsQueryInput, type NewPetInput, type Pet, type PetStatus, PetStoreApiError, type PetStoreEnvironment, type PetStoreErrorKind, type PetStoreTarget, type PetStoreTrpcClient, type PetsPage, type PetsPageResult, type RestClient, type RestClientOptions, type TrpcClientOptions, apiErrorOf, createRestClient, createTrpcClient, nextCursorFromLink, resolveBaseUrl };