// Apart from client-error.ts so that a page using only the REST client does not load the tRPC client to test
// for its error class.
import { type ApiError, ErrorSchema } from '@petstore/schema';
import { isTRPCClientError } from '@trpc/client';
import { PetStoreApiError } from './client-error.js';

/**
 * The service's `Error` body behind a failure from either client: a {@link PetStoreApiError} of kind `api`
 * (REST) or a `TRPCClientError` whose `data.error` carries it (tRPC). Lets a caller handle both transports with
 * one code path. Undefined for anything else (network failures, bugs).
 */
export function apiErrorOf(failure: unknown): ApiError | undefined {
  if (failure instanceof PetStoreApiError) return failure.error;
  if (isTRPCClientError(failure)) {
    const parsed = ErrorSchema.safeParse((failure.data as { error?: unknown } | undefined)?.error);
    return parsed.success ? parsed.data : undefined;
  }
  return undefined;
}
