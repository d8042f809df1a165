import * as z from 'zod/mini';

/** The request header that makes a createPet safe to retry (IETF httpapi draft "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Longest accepted key, in characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The key's rule as a message, the same on every transport. */
const IDEMPOTENCY_KEY_RULE = `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, not starting or ending with a space`;

const DESCRIPTION =
  `Makes the request safe to retry: 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, not starting or ` +
  'ending with a space (HTTP drops those from a header value), unique per ' +
  'logical request (a UUID). A repeat with the same key and body (same API key) returns the first response ' +
  'without creating anything; the same key with another body is 422; a repeat while the first is still ' +
  'running is 409. Keys are kept 24 hours (configurable).';

/**
 * An idempotency key: 1..255 printable ASCII characters (0x20-0x7E), the first and last not a space, taken as
 * sent (a UUID is the usual choice; the clients send `crypto.randomUUID()`). A header value cannot begin or end
 * with whitespace (RFC 9110 section 5.5: parsers drop it), so a key that does could never be repeated over REST:
 * it is refused on every transport alike. Anything else is 400 `invalid_idempotency_key`.
 */
export const IdempotencyKeySchema = z
  .string()
  .check(z.regex(/^(?! )[\x20-\x7E]{1,255}(?<! )$/, IDEMPOTENCY_KEY_RULE), z.describe(DESCRIPTION));

/** What the key means, for the contract's header entry and the OpenAPI document. */
export const IDEMPOTENCY_KEY_DESCRIPTION = DESCRIPTION;
