import { createHash } from 'node:crypto';
import { INT64_MAX, type PetStatus, PetStatusSchema } from '@petstore/schema';
import { operationError } from '../errors.js';

// A paging cursor: `base64url(JSON payload) "." base64url(first 12 bytes of sha256(domain + payload))`. The
// checksum makes a truncated, tampered or foreign token a clear 400 rather than a wrong page; it is integrity, not
// secrecy (anyone with a key can list the same pets), so no shared secret: a cursor works on every instance and
// transport. It is bound to its `status` filter (`after` only means something within it), not to `limit`.

const VERSION = 1;
const DOMAIN = 'petstore-cursor-v1\n';
const CHECKSUM_BYTES = 12;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DECIMAL_ID = /^[1-9][0-9]{0,18}$/;

export interface PetCursor {
  /** The id of the last pet of the previous page: the next page starts after it. */
  after: bigint;
  status?: PetStatus | undefined;
}

const checksum = (payload: string) =>
  createHash('sha256')
    .update(DOMAIN + payload)
    .digest()
    .subarray(0, CHECKSUM_BYTES)
    .toString('base64url');

export function encodePetCursor({ after, status }: PetCursor): string {
  // No `status` key without a filter (JSON.stringify leaves out an undefined value).
  const payload = JSON.stringify({ v: VERSION, after: String(after), status });
  return `${Buffer.from(payload).toString('base64url')}.${checksum(payload)}`;
}

// Cursors come with listPets (REST) and pagePets (tRPC): a code both declare.
const invalid = (why: string) =>
  operationError<'listPets' | 'pagePets'>('validation_failed', `cursor: ${why}`);

/**
 * The position a cursor names, for a request filtered by `status`; 400 `validation_failed` with a message
 * saying what is wrong when it is not a cursor of ours for that filter. Its length was judged with the input
 * (@petstore/schema CursorSchema, on every transport).
 */
export function decodePetCursor(text: string, status: PetStatus | undefined): PetCursor {
  const [body, sum, extra] = text.split('.') as [string, string?, string?];
  if (extra !== undefined || sum === undefined || !BASE64URL.test(body) || !BASE64URL.test(sum)) {
    throw invalid('is not a cursor given by this service (copy it whole from a Link header or nextCursor)');
  }
  const payload = Buffer.from(body, 'base64url').toString('utf8');
  if (sum !== checksum(payload)) {
    throw invalid('is damaged or was altered (checksum mismatch); restart from the first page');
  }
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    throw invalid('is not a cursor given by this service');
  }
  const fields = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (fields.v !== VERSION)
    throw invalid('was made by another version of the service; restart from the first page');
  const { after } = fields;
  const cursorStatus = fields.status === undefined ? undefined : PetStatusSchema.safeParse(fields.status);
  if (
    typeof after !== 'string' ||
    !DECIMAL_ID.test(after) ||
    BigInt(after) > INT64_MAX ||
    cursorStatus?.success === false
  ) {
    throw invalid('is not a cursor given by this service');
  }
  const madeFor = cursorStatus?.data;
  // One canonical form: the token must be exactly what encodePetCursor writes for what it decodes to. Base64url
  // has unused bits (and JSON other spellings, key orders, repeated keys) that would give one position many
  // tokens, each accepted as the original; a token that does not re-encode to the same bytes is refused.
  if (encodePetCursor({ after: BigInt(after), status: madeFor }) !== text) {
    throw invalid(
      'is not in the form this service writes it (copy it whole from a Link header or nextCursor)',
    );
  }
  if (madeFor !== status) {
    throw invalid(
      `was made for ${madeFor === undefined ? 'no status filter' : `status=${madeFor}`}, not for ` +
        `${status === undefined ? 'no status filter' : `status=${status}`}; keep the filter while paging`,
    );
  }
  return { after: BigInt(after), status: madeFor };
}
