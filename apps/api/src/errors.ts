import {
  type ApiError,
  ERROR_CODES,
  type ErrorCode,
  type OperationErrorCode,
  type OperationId,
} from '@petstore/schema';
import { classifyDatabaseError, unavailableMessage } from './db/database-errors.js';

/** The one error model: each transport renders it as the Error body `{ code, message, status }` and its headers. */
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
 * An error an operation answers with, typed by the operation (docs/development.md, adding an operation): a code the
 * contract does not declare for `Id` (for a helper serving several, for all of them) does not compile. Outside
 * operations (edge, auth, limits) errors are `new AppError` with a `CommonErrorCode` or an `EdgeErrorCode`.
 */
export const operationError = <Id extends OperationId = never>(
  code: OperationErrorCode<Id>,
  message: string,
  headers?: AppError['headers'],
) => new AppError(code, message, headers);

export const internalError = () =>
  new AppError('internal_error', 'the server failed to handle the request; it has been logged');

/** 503 `service_unavailable`, with the `Retry-After` (seconds) every such answer carries. */
export const serviceUnavailable = (message: string) =>
  new AppError('service_unavailable', message, { 'Retry-After': '5' });

/**
 * Anything thrown, in our error model: an AppError as it is, a database that cannot serve now as 503
 * (db/database-errors.ts decides); undefined for a fault of ours (the caller logs it and answers 500).
 */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const unavailable = classifyDatabaseError(error);
  return unavailable === undefined ? undefined : serviceUnavailable(unavailableMessage(unavailable));
}
