import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';
import { sha256 } from '../keys/api-key-digest.js';
import { API_KEY_TOKEN } from '../keys/api-key-format.js';

// `Authorization: Bearer <key>`; the scheme is case-insensitive (RFC 9110 section 11.1), the token is a
// b64token (RFC 6750 section 2.1).
const BEARER = new RegExp(`^bearer +(${API_KEY_TOKEN}) *$`, 'i');

/** Who is calling, by key: `env:<n>` for the n-th API_KEYS entry, `db:<id>` for an issued key. Never the key. */
export interface Caller {
  subject: string;
}

/** Resolves a presented key to its caller, or undefined when the key is unknown or revoked. */
export type KeyVerifier = (key: string) => Promise<Caller | undefined>;

/**
 * Checks keys from API_KEYS in constant time: every configured key is compared, always, as fixed-length
 * SHA-256 digests, so neither the position of a match nor the length of a key shows in the timing.
 * Keys it does not know go to `findIssuedKey` (the api_keys table), which looks them up by digest.
 */
export function createKeyVerifier(
  envKeys: readonly string[],
  issued?: {
    /** Only keys with this prefix can be issued keys; others never cost a database query (401 stays cheap). */
    prefix: string;
    find: (keyHash: Buffer) => Promise<{ id: bigint } | undefined>;
  },
): KeyVerifier {
  const digests = envKeys.map(sha256);
  return async (presented) => {
    const candidate = sha256(presented);
    let index = -1;
    digests.forEach((known, i) => {
      if (timingSafeEqual(candidate, known) && index === -1) index = i;
    });
    if (index !== -1) return { subject: `env:${index}` };
    if (issued === undefined || !presented.startsWith(issued.prefix)) return undefined;
    const row = await issued.find(candidate);
    return row === undefined ? undefined : { subject: `db:${row.id}` };
  };
}

export class UnauthorizedError extends AppError {
  /** RFC 6750: an `error` attribute only when a token was presented. */
  constructor(message: string, tokenPresented: boolean) {
    super('unauthorized', message, {
      'WWW-Authenticate': tokenPresented
        ? 'Bearer realm="petstore", error="invalid_token"'
        : 'Bearer realm="petstore"',
    });
  }
}

/** The credential check both transports run before anything else; throws UnauthorizedError. */
export async function authenticate(authorization: string | undefined, verify: KeyVerifier): Promise<Caller> {
  if (authorization === undefined || authorization === '') {
    throw new UnauthorizedError('missing API key: send the header "Authorization: Bearer <API key>"', false);
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw new UnauthorizedError('malformed Authorization header: expected "Bearer <API key>"', false);
  }
  const caller = await verify(token);
  if (caller === undefined) throw new UnauthorizedError('invalid API key', true);
  return caller;
}

/**
 * Admits a request: authenticates it, then charges the caller's rate limit. Both transports call this
 * one function first, so a request is refused the same way whichever way it came.
 */
export type AccessGuard = (authorization: string | undefined) => Promise<Caller>;

export function createAccessGuard(
  verify: KeyVerifier,
  rateLimit?: (caller: Caller) => Promise<void>,
): AccessGuard {
  return async (authorization) => {
    const caller = await authenticate(authorization, verify);
    await rateLimit?.(caller);
    return caller;
  };
}

export function requireAccess(guard: AccessGuard): RequestHandler {
  return async (req, res, next) => {
    res.locals.caller = await guard(req.headers.authorization);
    next();
  };
}
