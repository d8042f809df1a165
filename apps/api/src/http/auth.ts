import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import { callerIdentity, sha256 } from '../keys/api-key-digest.js';
import { API_KEY_TOKEN } from '../keys/api-key-format.js';
import { type createFailureLimiter, type RateLimiter, rateLimitHeaders } from '../limits/rate-limiter.js';
import type { Caller } from '../operations.js';

// `Authorization: Bearer <key>`; the scheme is case-insensitive (RFC 9110 section 11.1), the token is a
// b64token (RFC 6750 section 2.1).
const BEARER = new RegExp(`^bearer +(${API_KEY_TOKEN}) *$`, 'i');
/** The scheme is Bearer, whatever follows (a tab, a comma): not a token character, so not another scheme's name. */
const BEARER_ATTEMPT = /^bearer(?![-!#$%&'*+.^_`|~\w])/i;

/** A request's `Authorization`: absent, its value, or every value when the field is repeated. */
type Authorization = string | string[] | undefined;

/** Resolves a presented key to its caller, or undefined when the key is unknown or revoked. */
export type KeyVerifier = (key: string) => Promise<Caller | undefined>;

/**
 * Compares a key with every one of API_KEYS, always, as SHA-256 digests (neither a match's position nor a key's
 * length shows in the timing); others are looked up by digest in the api_keys table. The caller is
 * {@link callerIdentity} of the digest: never a position in API_KEYS, which differs between instances.
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
  // Unknown `psk_` keys, remembered for 30 s: a flood of made-up ones costs a query per key, not per request. Only
  // absence is cached: a revoked key stops working at once.
  const unknown = new Map<string, number>();
  return async (presented) => {
    const candidate = sha256(presented);
    let matched = false;
    for (const known of digests) matched = timingSafeEqual(candidate, known) || matched;
    if (matched) return { subject: callerIdentity(candidate) };
    if (issued === undefined || !presented.startsWith(issued.prefix)) return undefined;
    const cacheKey = candidate.toString('base64');
    const now = Date.now();
    if ((unknown.get(cacheKey) ?? 0) > now) return undefined;
    const row = await issued.find(candidate);
    if (row === undefined) {
      if (unknown.size >= 10_000) unknown.clear();
      unknown.set(cacheKey, now + 30_000);
      return undefined;
    }
    return { subject: callerIdentity(candidate), issuedKeyHash: candidate };
  };
}

class UnauthorizedError extends AppError {
  /**
   * RFC 6750 section 3.1: `invalid_token` for a key that is not one, `invalid_request` for a malformed attempt at
   * Bearer (or two credentials), no error code when the request made no attempt at it. The status stays 401.
   */
  constructor(message: string, error?: 'invalid_token' | 'invalid_request') {
    super('unauthorized', message, {
      'WWW-Authenticate': `Bearer realm="petstore"${error === undefined ? '' : `, error="${error}"`}`,
    });
  }
}

/** The request's `Authorization`, or every value when repeated (Node keeps the first, a proxy may read the last). */
function authorizationOf(req: IncomingMessage): Authorization {
  const value = req.headers.authorization;
  if (value === undefined) return undefined;
  // Counted in rawHeaders, not read from req.headersDistinct, which builds an array for every field of every request.
  const raw = req.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  if (count < 2) return value;
  return raw.filter((_, i) => i % 2 === 1 && (raw[i - 1] as string).toLowerCase() === 'authorization');
}

/** The credential check both transports run before anything else; throws UnauthorizedError. */
export async function authenticate(authorization: Authorization, verify: KeyVerifier): Promise<Caller> {
  if (Array.isArray(authorization)) {
    throw new UnauthorizedError('more than one Authorization header: send exactly one', 'invalid_request');
  }
  if (authorization === undefined || authorization === '') {
    throw new UnauthorizedError('missing API key: send the header "Authorization: Bearer <API key>"');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    throw new UnauthorizedError(
      'malformed Authorization header: expected "Bearer <API key>"',
      BEARER_ATTEMPT.test(authorization) ? 'invalid_request' : undefined,
    );
  }
  const caller = await verify(token);
  if (caller === undefined) throw new UnauthorizedError('invalid API key', 'invalid_token');
  return caller;
}

interface AccessRequest {
  /** The client's address, for the limit on failed authentications. */
  address?: string | undefined;
  /** How many calls the request carries (a tRPC batch), charged at once. */
  cost?: number;
  /** Gets the `RateLimit` fields once the request is admitted. */
  response?: Pick<ServerResponse, 'setHeader'> | undefined;
}

const CALLER = Symbol('petstore.caller');

/** The caller a response answers (its {@link Caller} subject), once the guard admitted the request: the access log's and the span's. */
export const callerOf = (res: object): string | undefined => (res as { [CALLER]?: string })[CALLER];

/** Authenticates, then charges the rate limit: every transport calls it first, once per HTTP request. */
export type AccessGuard = (authorization: Authorization, request?: AccessRequest) => Promise<Caller>;

/**
 * The guard on an HTTP request, read one way on every transport: its `Authorization` (authorizationOf), the address
 * its connection came from (the failed-authentication limit) and its response (the `RateLimit` fields, the caller).
 */
export const admit = (guard: AccessGuard, req: IncomingMessage, res: ServerResponse, cost?: number) =>
  guard(authorizationOf(req), { address: req.socket.remoteAddress, response: res, cost });

export function createAccessGuard(
  verify: KeyVerifier,
  limits: { rateLimit?: RateLimiter; failures?: ReturnType<typeof createFailureLimiter> } = {},
): AccessGuard {
  const { rateLimit, failures } = limits;
  return async (authorization, request = {}) => {
    const address = request.address ?? '';
    let caller: Caller;
    try {
      caller = await authenticate(authorization, verify);
    } catch (error) {
      // Only failures are limited per address: behind a balancer every client has its address, and one client's
      // wrong key must not lock the others' valid keys out.
      if (error instanceof UnauthorizedError && failures !== undefined) {
        await failures.check(address);
        await failures.record(address);
      }
      throw error;
    }
    if (request.response !== undefined) (request.response as { [CALLER]?: string })[CALLER] = caller.subject;
    if (rateLimit !== undefined) {
      const headers = rateLimitHeaders(await rateLimit(caller.subject, request.cost));
      for (const name in headers) request.response?.setHeader(name, headers[name] as string);
    }
    return caller;
  };
}
