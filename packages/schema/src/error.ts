import { z } from 'zod';

/**
 * The codes this service puts in `Error.code`. The set is stable: a code is never renamed or reused for another
 * meaning; a new one may be added in a minor version, so clients should treat an unknown code by its `status`.
 */
export const ERROR_CODES = {
  validation_failed: 400,
  malformed_json: 400,
  unauthorized: 401,
  pet_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The body of every error response: a machine-readable code, a human-readable message, the HTTP status. */
const errorCodeList = Object.entries(ERROR_CODES)
  .map(([code, status]) => `\`${code}\` (${status})`)
  .join(', ');

export const ErrorSchema = z
  .strictObject({
    code: z.string().meta({ description: 'Machine-readable; one of the codes listed on the schema.' }),
    message: z.string().meta({ description: 'A sentence a person can act on.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status of the response.' }),
  })
  .meta({
    description:
      'The body of every error response, 4xx and 5xx; `status` equals the HTTP status. Known codes: ' +
      `${errorCodeList}. Codes are never renamed or reused; new ones may be added, so treat an unknown code ` +
      'by its `status`.',
    'x-error-codes': { ...ERROR_CODES },
  });
export type ApiError = z.output<typeof ErrorSchema>;
