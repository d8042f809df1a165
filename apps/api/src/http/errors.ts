import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_BASE_PATH } from '@petstore/schema';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, internalError, toAppError } from '../errors.js';
import { type AccessGuard, admit } from './auth.js';
import { sendError } from './send.js';

/** Errors raised by Express or Node itself carry a 4xx `status`. */
function fromLibraryError(error: Error & { status?: number; statusCode?: number }): AppError | undefined {
  const status = error.status ?? error.statusCode;
  if (error instanceof URIError || (status === 400 && /decode/i.test(error.message))) {
    return new AppError('validation_failed', 'the URL is not valid percent-encoded UTF-8');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('validation_failed', 'the request could not be read');
  }
  return undefined;
}

/** Called with a fault of ours (not the caller's), for the logs; the caller only sees a bare 500. */
export type InternalErrorSink = (error: unknown, req: IncomingMessage) => void;

/** Renders anything thrown as the Error body: an AppError as it is, anything unexpected logged and a bare 500. */
export function handleError(
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  onInternalError: InternalErrorSink,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const known = toAppError(error) ?? (error instanceof Error ? fromLibraryError(error) : undefined);
  if (known === undefined) onInternalError(error, req);
  sendError(res, known ?? internalError());
}

/** Express's error handler: the same rendering for errors raised outside the REST handler. */
export function errorHandler(onInternalError: InternalErrorSink): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => handleError(error, req, res, onInternalError);
}

/** The last handler. Under /v1 the key is checked first: a caller without one learns nothing about paths. */
export function routeNotFound(guard: AccessGuard): RequestHandler {
  return async (req, res) => {
    const inApi = req.path === API_BASE_PATH || req.path.startsWith(`${API_BASE_PATH}/`);
    if (inApi) await admit(guard, req, res);
    // Outside /v1 (`GET /`, `/pets`), where someone new lands first, the 404 says where the API and its docs are.
    const hint = inApi
      ? ''
      : `: the API is under ${API_BASE_PATH} (GET ${API_BASE_PATH}/pets with an API key); its documentation is at /docs and ${API_BASE_PATH}/openapi.json`;
    throw new AppError('route_not_found', `no route for ${req.method} ${req.path}${hint}`);
  };
}

/**
 * The CORS preflights to answer, by response (app.ts, once the edge has read them, when origins are configured): each
 * sets its fields given the methods of its path.
 */
export const corsPreflights = new WeakMap<object, (allow: string) => void>();

/**
 * A method a path that exists does not serve: OPTIONS is 204 with `Allow`, anything else throws the 405. Every path
 * answers OPTIONS, so `allow` names it (RFC 9110 section 10.2.1). A CORS preflight is answered here too, with the same
 * methods, and whatever its route answers other methods first (a 403, a 404) answers it too.
 */
export function answerOtherMethod(req: IncomingMessage, res: ServerResponse, allow: string): void {
  res.setHeader('Allow', allow);
  if (req.method !== 'OPTIONS') {
    throw new AppError('method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`);
  }
  corsPreflights.get(res)?.(allow);
  res.statusCode = 204;
  res.end();
}

/**
 * The one spelling of `Allow` for the methods a path serves, on every route (REST's paths, tRPC's procedures, the
 * documentation, the metrics, `OPTIONS *`): HEAD wherever GET is (RFC 9110 section 9.3.2), OPTIONS always.
 */
export function allowOf(methods: Iterable<string>): string {
  const served = new Set(methods);
  const others = [...served].filter(
    (method) => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS',
  );
  return [...(served.has('GET') ? ['GET', 'HEAD'] : []), ...others, 'OPTIONS'].join(', ');
}

/** The `Allow` of a path served by GET alone. */
export const READ_ALLOW = allowOf(['GET']);
