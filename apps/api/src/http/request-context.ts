import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, SECURITY_HEADER_CONTRACTS } from '@petstore/schema/internal';
import type { RequestHandler } from 'express';
import type { AccessLog } from '../logger.js';
import type { Metrics } from '../observability/metrics.js';
import {
  DOCS_LABEL,
  HEALTHZ_LABEL,
  labelResponse,
  READYZ_LABEL,
  responseLabel,
} from '../observability/operation-label.js';
import type { RequestTracer } from '../observability/request-tracer.js';
import { callerOf } from './auth.js';
import { OPENAPI_PATH } from './docs.js';
import { pathOf } from './edge.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Longest path written to the access log (a 10 KB tRPC batch URL is cut, marked with `…`). */
const LOGGED_PATH_MAX = 200;

const SECURITY_HEADERS: readonly [string, string][] = Object.entries(SECURITY_HEADER_CONTRACTS).map(
  ([name, { value }]) => [name, value],
);

/** By lower-case name: what a library writing its own answer (tRPC's adapter, the MCP SDK) must not replace. */
export const FIXED_HEADERS: ReadonlyMap<string, string> = new Map(
  SECURITY_HEADERS.map(([name, value]) => [name.toLowerCase(), value]),
);

const { setHeader, appendHeader, writeHead } = ServerResponse.prototype;
const isConnection = (name: string) => name.length === 10 && name.toLowerCase() === 'connection';
/** Node's own test of a `Connection` field for `close` (lib/_http_outgoing.js RE_CONN_CLOSE). */
const CLOSE = /(?:^|\W)close(?:$|\W)/i;
const NO_STORE = (SECURITY_HEADER_CONTRACTS['Cache-Control'] as { value: string }).value;
/** What an error answer must not carry: a validator or a freshness of its own. */
const NOT_ON_ERRORS = new Set(['etag', 'last-modified', 'cache-control', 'expires']);

type Fields = Parameters<ServerResponse['writeHead']>[1];

/** The fields given to `writeHead` (an object or a flat list: every answer has fields set before), without NOT_ON_ERRORS. */
function withoutValidators(fields: Fields): Fields {
  if (typeof fields !== 'object' || fields === null) return fields;
  const kept = (name: unknown) => !NOT_ON_ERRORS.has(String(name).toLowerCase());
  if (!Array.isArray(fields))
    return Object.fromEntries(Object.entries(fields).filter(([name]) => kept(name)));
  const flat: unknown[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    if (kept(fields[index])) flat.push(fields[index], fields[index + 1]);
  }
  return flat as never;
}

/**
 * The rules every answer keeps, whoever writes it (our handlers, Express, tRPC's adapter, the MCP SDK), set on
 * `response` (the app's prototype of every response, http.Server's too: server-limits.ts messageClasses):
 *
 * - Whether a connection is kept after an answer is Node's to say, from the request and its own state (RFC 9112
 *   section 9.6: closed when the request says `Connection: close`); a `Connection` field a handler sets overrides
 *   it. The MCP SDK sets `keep-alive` on its answers, so a client that asked to close was kept until the
 *   keep-alive timeout. So the field is never set, whoever sets it: one that says `close` (a refusal whose body may
 *   still arrive) is Node's `shouldKeepAlive = false`, which writes the field itself; any other is dropped. Fields
 *   enter an answer through these two, writeHead's own too once the answer has one (requestContext sets
 *   X-Request-Id first on every answer).
 * - An error (4xx, 5xx) describes no representation (RFC 9110 section 8.8.3) and is never stored, whatever the
 *   route or library set for its success (the documentation's `ETag` and `max-age`): no validator, `no-store`.
 *   Every answer's head goes out through `writeHead` (Node's implicit head included), so no writer can skip it.
 */
export function answerRules(response: Pick<ServerResponse, 'setHeader' | 'appendHeader' | 'writeHead'>) {
  const withoutConnection = (set: (this: ServerResponse, name: string, value: never) => ServerResponse) =>
    function (this: ServerResponse, name: string, value: never) {
      if (!isConnection(name)) return set.call(this, name, value);
      if (CLOSE.test(String(value))) this.shouldKeepAlive = false;
      return this;
    };
  response.setHeader = withoutConnection(setHeader);
  response.appendHeader = withoutConnection(appendHeader);
  response.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status >= 400) {
      for (const name of NOT_ON_ERRORS) this.removeHeader(name);
      setHeader.call(this, 'Cache-Control', NO_STORE);
      const last = rest.length - 1;
      if (last >= 0 && typeof rest[last] === 'object') rest[last] = withoutValidators(rest[last] as Fields);
    }
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

/**
 * The headers every answer carries, whatever its route or status (the contract's security headers, `Cache-Control:
 * no-store` among them), set first: on the API by requestContext, on the metrics listener by its handler. The
 * request id is requestContext's alone: it names the access-log line of the request, and the metrics listener
 * writes none.
 */
export function setFixedHeaders(res: Pick<ServerResponse, 'setHeader'>): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}

export interface RequestObservers {
  accessLog?: AccessLog | undefined;
  metrics?: Pick<Metrics, 'observe'> | undefined;
  tracer?: RequestTracer | undefined;
}

/**
 * Every request, first: an id (the caller's X-Request-Id when sane, else a UUID) and the security headers; when
 * finished, an access-log line (never headers, bodies or query values; the caller as the guard named it, never the
 * key), its metrics and the end of its span, labelled by operation, never by path.
 */
export function requestContext({ accessLog, metrics, tracer }: RequestObservers): RequestHandler {
  const observed = accessLog !== undefined || metrics !== undefined || tracer !== undefined;
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader(REQUEST_ID_HEADER, requestId);
    setFixedHeaders(res);
    if (!observed) return next();
    const started = performance.now();
    const url = req.originalUrl;
    const method = req.method; // as sent: the edge shows a HEAD to the routes as its GET
    const span = tracer?.start(req, res);
    // `on`, not `once`: a response finishes once, and `once` cost a wrapper and a listener removal per request.
    res.on('finish', () => {
      const ms = performance.now() - started;
      const status = res.statusCode;
      if (metrics !== undefined || span !== undefined) {
        const label = responseLabel(res);
        metrics?.observe(label, method, status, ms / 1000);
        span?.end(label, status, callerOf(res));
      }
      if (accessLog !== undefined) {
        let path = pathOf(url);
        if (path.length > LOGGED_PATH_MAX) path = `${path.slice(0, LOGGED_PATH_MAX)}…`;
        accessLog(requestId, method, path, status, ms, span?.traceId, callerOf(res));
      }
    });
    if (span === undefined) next();
    else {
      // A client that goes away before the answer: the span still ends (as aborted).
      res.once('close', () => span.end(responseLabel(res), 0, callerOf(res)));
      span.run(next);
    }
  };
}

/** Labels the probes and the documentation (the API's own handlers label their requests). */
export const labelOtherRoutes: RequestHandler = (req, res, next) => {
  const path = req.path;
  if (path === '/healthz') labelResponse(res, HEALTHZ_LABEL);
  else if (path === '/readyz') labelResponse(res, READYZ_LABEL);
  else if (path === '/docs' || path.startsWith('/docs/') || path === OPENAPI_PATH) {
    labelResponse(res, DOCS_LABEL);
  }
  next();
};
