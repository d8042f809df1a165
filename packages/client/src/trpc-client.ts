import type { AppRouter } from '@petstore/api/router';
import { TRPC_ENDPOINT } from '@petstore/schema';
import { createTRPCClient, httpBatchLink, httpLink, type TRPCClient } from '@trpc/client';
import superjson from 'superjson';
import { type PetStoreEnvironment, resolveBaseUrl } from './environments.js';

export type { AppRouter };

/** The tRPC client, typed by the service's router: `client.pets.list.query(...)`, `client.pets.create.mutate(...)`. */
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
  /** Sent as `Authorization: Bearer <apiKey>` on every request. */
  apiKey: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
  /** Send the calls made in the same tick in one request (default true). */
  batch?: boolean;
};

/**
 * A tRPC client for internal TypeScript apps. Inputs and results are typed by the service's `AppRouter`; int64
 * values travel as `bigint` (superjson). A failure is a `TRPCClientError` whose `data.error` is the same
 * `Error` body REST would have sent; `apiErrorOf(error)` reads it for either client.
 */
export function createTrpcClient(options: TrpcClientOptions): PetStoreTrpcClient {
  const url =
    options.environment !== undefined
      ? `${resolveBaseUrl({ environment: options.environment })}${TRPC_ENDPOINT}`
      : options.url;
  if (typeof url !== 'string' || url === '')
    throw new TypeError('url is required, for example https://<host>/v1/trpc');
  if (typeof options.apiKey !== 'string' || options.apiKey === '') {
    throw new TypeError('apiKey is required: the service refuses every call without one');
  }
  const authorization = `Bearer ${options.apiKey}`;
  const linkOptions = {
    url,
    transformer: superjson,
    headers: () => ({ authorization }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  return createTRPCClient<AppRouter>({
    links: [options.batch === false ? httpLink(linkOptions) : httpBatchLink(linkOptions)],
  });
}
