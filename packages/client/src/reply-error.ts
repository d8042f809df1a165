import { ErrorSchema, parseJson } from '@petstore/schema';
import { PetStoreApiError } from './client-error.js';
import { attemptsSuffix } from './retry.js';

/**
 * The failure a reply with an error status stands for: the service's `Error` body (kind `api`), JSON without one
 * (`invalid_body`), or no JSON at all, such as a proxy's HTML page (`non_json`). One reading for every call and
 * for a stream that is refused.
 */
export function errorOfReply(
  request: string,
  status: number,
  text: string,
  attempts?: number,
): PetStoreApiError {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    return new PetStoreApiError(
      'non_json',
      `${request} answered ${status} with a body that is not JSON${attemptsSuffix(attempts)}`,
      { status, responseText: text, attempts },
    );
  }
  const error = ErrorSchema.safeParse(json);
  if (error.success) {
    return new PetStoreApiError(
      'api',
      `${error.data.code} (${status}): ${error.data.message}${attemptsSuffix(attempts)}`,
      { status, error: error.data, attempts },
    );
  }
  return new PetStoreApiError(
    'invalid_body',
    `${request} answered ${status} without an Error body${attemptsSuffix(attempts)}`,
    { status, responseText: text, attempts },
  );
}
