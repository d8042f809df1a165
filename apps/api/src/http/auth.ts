import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';

// `Authorization: Bearer <key>`; the scheme is case-insensitive (RFC 9110 section 11.1), the token is a
// b64token (RFC 6750 section 2.1).
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

const digest = (key: string) => createHash('sha256').update(key).digest();

/**
 * Checks API keys in constant time: every configured key is compared, always, as fixed-length SHA-256
 * digests, so neither the position of a match nor the length of a key shows in the timing.
 */
export function createKeyChecker(keys: readonly string[]) {
  const digests = keys.map(digest);
  return (presented: string): boolean => {
    const candidate = digest(presented);
    let match = false;
    for (const known of digests) match = timingSafeEqual(candidate, known) || match;
    return match;
  };
}

export class UnauthorizedError extends AppError {
  constructor(
    message: string,
    /** RFC 6750: an `error` attribute only when a token was presented. */
    readonly tokenPresented: boolean,
  ) {
    super('unauthorized', message);
  }

  get challenge(): string {
    return this.tokenPresented ? 'Bearer realm="petstore", error="invalid_token"' : 'Bearer realm="petstore"';
  }
}

/** The credential check both transports run before anything else; throws UnauthorizedError. */
export function authenticate(authorization: string | undefined, isKnownKey: (key: string) => boolean): void {
  if (authorization === undefined || authorization === '') {
    throw new UnauthorizedError('missing API key: send the header "Authorization: Bearer <API key>"', false);
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw new UnauthorizedError('malformed Authorization header: expected "Bearer <API key>"', false);
  }
  if (!isKnownKey(token)) throw new UnauthorizedError('invalid API key', true);
}

export function requireApiKey(isKnownKey: (key: string) => boolean): RequestHandler {
  return (req, _res, next) => {
    authenticate(req.headers.authorization, isKnownKey);
    next();
  };
}
