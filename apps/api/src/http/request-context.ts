import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { AccessLog } from '../logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Longest path written to the access log; a 10 KB tRPC batch URL is cut here, marked with `…`. */
const LOGGED_PATH_MAX = 200;

/**
 * The security headers of the OWASP REST Security Cheat Sheet, computed once: a JSON API has no page to frame,
 * no content to sniff and no response a shared cache should keep. (The /docs page adds helmet's HTML policy.)
 */
const SECURITY_HEADERS: readonly [string, string][] = [
  ['Cache-Control', 'no-store'],
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
];

/**
 * Every request, first: an id (the caller's X-Request-Id when it is sane, else a new UUID), echoed; the security
 * headers; and one access-log line when the response is finished. Only method, path (without the query),
 * status, duration and the id are logged: never headers, bodies or query values that might carry secrets.
 */
export function requestContext(accessLog: AccessLog | undefined): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    if (accessLog !== undefined) {
      const started = performance.now();
      const url = req.originalUrl;
      res.once('finish', () => {
        const queryStart = url.indexOf('?');
        let path = queryStart === -1 ? url : url.slice(0, queryStart);
        if (path.length > LOGGED_PATH_MAX) path = `${path.slice(0, LOGGED_PATH_MAX)}…`;
        accessLog(requestId, req.method, path, res.statusCode, performance.now() - started);
      });
    }
    next();
  };
}
