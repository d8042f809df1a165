import {
  type ApiError,
  ERROR_CODES,
  type ErrorCode,
  type OperationErrorCode,
  type OperationId,
} from '@petstore/schema';
import { classifyDatabaseError, unavailableMessage } from './db/database-errors.js';

/**
 * The one error model. Domain code and middleware throw an AppError; each transport renders it as the
 * interface's Error body `{ code, message, status }` (REST as the response, tRPC inside `error.data`),
 * with the same extra response headers (`WWW-Authenticate`, `Retry-After`).
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // An AppError is an answer to the caller (401, 400, 404...), not a fault to debug: capturing a stack trace
    // for each one cost about 5% of the CPU of a flood of bad keys. Faults of ours keep their own stacks.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = ERROR_CODES[code];
  }

  toBody(): ApiError {
    return { code: this.code, message: this.message, status: this.status };
  }
}

/**
 * An error an operation answers with, typed by the operation: `operationError<'getPet'>('pet_not_found', ...)`.
 * The code must be one the contract declares for `Id` (for a helper serving several operations, one all of them
 * declare), or it does not compile; without a type argument no code does. The domain (pets/, idempotency/,
 * keys/) raises errors only this way (biome.json forbids it `AppError`), so a service cannot answer with a code
 * its operation does not declare. Errors raised outside operations (edge, auth, limits, tRPC's own) use
 * `new AppError` with codes every operation declares (`CommonErrorCode`) or that none does (`EdgeErrorCode`).
 * The same one object as `new AppError`: nothing more on the hot path.
 */
export function operationError<Id extends OperationId = never>(
  code: OperationErrorCode<Id>,
  message: string,
  headers?: Readonly<Record<string, string>>,
): AppError {
  return new AppError(code, message, headers);
}

export const internalError = () =>
  new AppError('internal_error', 'the server failed to handle the request; it has been logged');

/** Seconds a client should wait before retrying while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** 503 `service_unavailable`, with the `Retry-After` every such answer carries. */
export const serviceUnavailable = (message: string) =>
  new AppError('service_unavailable', message, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });

/**
 * Anything thrown, in our error model: an AppError as it is, a database that cannot serve the request now
 * (db/database-errors.ts decides) as 503 `service_unavailable` with `Retry-After`, its message saying whether a
 * write may have been applied; undefined for a fault of ours (the caller logs it and answers 500).
 */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const unavailable = classifyDatabaseError(error);
  if (unavailable !== undefined) return serviceUnavailable(unavailableMessage(unavailable));
  return undefined;
}
