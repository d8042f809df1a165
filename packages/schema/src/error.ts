import * as z from 'zod/mini';

/**
 * The codes this service puts in `Error.code`. The set is stable: a code is never renamed or reused for another
 * meaning; a new one may be added in a minor version, so clients should treat an unknown code by its `status`.
 */
export const ERROR_CODES = {
  validation_failed: 400,
  malformed_json: 400,
  /** Not valid HTTP/1.1 (a bad request line or header, conflicting lengths): answered before any route. */
  malformed_request: 400,
  invalid_idempotency_key: 400,
  unauthorized: 401,
  /** Refused whoever asks: an `Origin` the MCP endpoint does not serve (a browser page of another site). */
  forbidden: 403,
  pet_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  /** `Accept` refuses a type the answer may come in (the MCP endpoint answers JSON or an event stream). */
  not_acceptable: 406,
  /** The client took longer than the server's request or headers timeout to send its request. */
  request_timeout: 408,
  idempotency_key_in_use: 409,
  /** The change feed was asked for events after an id older than what the service keeps (they were pruned). */
  events_expired: 410,
  /** `If-Match` or `If-None-Match` evaluated false (RFC 9110 section 13): the method was not applied. */
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** An `Expect` header other than `100-continue`. */
  expectation_failed: 417,
  idempotency_key_reused: 422,
  rate_limited: 429,
  /** The request line and headers together exceed the server's limit. */
  headers_too_large: 431,
  internal_error: 500,
  /** A request method the server does not implement (RFC 9110 section 15.6.2): answered before any route. */
  not_implemented: 501,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The body of every error response: a machine-readable code, a human-readable message, the HTTP status. */
const errorCodeList = Object.entries(ERROR_CODES)
  .map(([code, status]) => `\`${code}\` (${status})`)
  .join(', ');

export const ErrorSchema = z
  .strictObject({
    code: z.string().check(z.describe('Machine-readable; one of the codes listed on the schema.')),
    message: z.string().check(z.describe('A sentence a person can act on.')),
    status: z.int().check(z.gte(400), z.lte(599), z.describe('The HTTP status of the response.')),
  })
  .check(
    z.meta({
      description:
        'The body of every error response, 4xx and 5xx; `status` equals the HTTP status. Known codes: ' +
        `${errorCodeList}. Codes are never renamed or reused; new ones may be added, so treat an unknown code ` +
        'by its `status`.',
      'x-error-codes': { ...ERROR_CODES },
    }),
  );
export type ApiError = z.output<typeof ErrorSchema>;
