import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, internalError, toAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { sendJson } from './send.js';

/** Errors raised by body-parser / Express itself carry a `type` or a 4xx `status`. */
type HttpLibraryError = Error & { type?: string; status?: number; statusCode?: number };

function fromLibraryError(error: HttpLibraryError): AppError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', 'request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', `unsupported request body encoding: ${error.message}`);
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('validation_failed', 'request body was incomplete');
  }
  const status = error.status ?? error.statusCode;
  if (error instanceof URIError || (status === 400 && /decode/i.test(error.message))) {
    return new AppError('validation_failed', 'the URL is not valid percent-encoding');
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('validation_failed', 'the request could not be read');
  }
  return undefined;
}

/** Renders every error as the Error body; anything unexpected is logged and becomes a bare 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const known = toAppError(error) ?? (error instanceof Error ? fromLibraryError(error) : undefined);
    const appError = known ?? internalError();
    if (known === undefined) {
      logger.error(
        { err: error, method: req.method, path: req.path, requestId: res.get('x-request-id') },
        'unhandled error',
      );
    }
    res.set(appError.headers);
    sendJson(res, appError.status, appError.toBody());
  };
}

export const routeNotFound: RequestHandler = (req) => {
  throw new AppError('route_not_found', `no route for ${req.method} ${req.path}`);
};

/** For a path that exists: OPTIONS lists the methods, any other unsupported method is 405 with `Allow`. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = allowed.join(', ');
  return (req, res) => {
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    throw new AppError('method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`);
  };
}
