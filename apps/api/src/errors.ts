import { type ApiError, ERROR_CODES, type ErrorCode } from '@petstore/schema';

/**
 * The one error model. Domain code and middleware throw an AppError; each transport renders it as the
 * interface's Error body `{ code, message, status }` (REST as the response, tRPC inside `error.data`).
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.status = ERROR_CODES[code];
  }

  toBody(): ApiError {
    return { code: this.code, message: this.message, status: this.status };
  }
}

export const internalError = () =>
  new AppError('internal_error', 'the server failed to handle the request; it has been logged');
