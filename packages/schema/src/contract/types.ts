// The shape of an operation's declaration (what contract/operations.ts writes for each operation): plain types,
// no data. The types derived from the declared operations live in contract/operation-types.ts.
import type * as z from 'zod/mini';
import type { ErrorCode } from '../error.js';
import type { STABILITY_LEVELS } from './constants.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How settled an operation's shape is: `stable`, `beta` or `experimental` (STABILITY_LEVELS). */
export type StabilityLevel = (typeof STABILITY_LEVELS)[number];

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
    /**
     * A stream of events instead of one body: REST answers `text/event-stream` (Server-Sent Events, each event's
     * `data` one line of `event`'s JSON, its `id:` the event's id), tRPC's subscription yields the same events
     * (`tracked(id, event)`), and the handler returns them as an async iterable. `kinds`: the `event:` names.
     */
    readonly stream?: { readonly event: BodyContract; readonly kinds: readonly string[] };
  };
  /** Every error status the operation can answer with. Nothing else is ever sent for it. */
  readonly errors: Readonly<Record<number, ErrorResponseContract>>;
  readonly deprecated?: DeprecationContract;
  /**
   * How settled the operation is, and so what may change in it outside a major version (`stable`: nothing that
   * breaks a caller; `beta`: a break in a minor whose changeset names the operation; `experimental`: a break in
   * any minor). Every REST response of it names the level (`Petstore-Stability`), as does its OpenAPI operation
   * (`x-stability`). Independent of `deprecated`: a deprecated operation keeps its level until it is removed.
   */
  readonly stability: StabilityLevel;
  readonly trpc: {
    readonly router: string;
    readonly procedure: string;
    readonly kind: 'query' | 'mutation' | 'subscription';
  };
}

/** Whether an operation is served over REST (tRPC-only operations have no method and path). */
export function isRestOperation(op: OperationContract): op is RestOperationContract {
  return op.method !== undefined && op.path !== undefined;
}
