// Apart from client-error.ts so that a page using only the REST client does not load the tRPC client to test
// for its error class.
import {
  type ApiError,
  ErrorSchema,
  isOperationErrorCode,
  type OperationApiError,
  type OperationId,
} from '@petstore/schema';
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

/**
 * {@link apiErrorOf} for a failure of `operation`: the body typed by the codes that operation declares, `code`
 * and `status` narrowing together (`operationErrorOf(error, 'createPet')?.code === 'idempotency_key_reused'`).
 * Undefined also for a code it does not declare (one a newer server added: handle it by `status` with
 * `apiErrorOf`).
 */
export function operationErrorOf<Id extends OperationId>(
  failure: unknown,
  operation: Id,
): OperationApiError<Id> | undefined {
  const error = apiErrorOf(failure);
  if (error === undefined || !isOperationErrorCode(operation, error.code)) return undefined;
  // The service sends each code with its one status (ERROR_CODES), so the body is that code's member of the union.
  return error as OperationApiError<Id>;
}
