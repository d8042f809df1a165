import type { ServerResponse } from 'node:http';
import { SECURITY_HEADER_CONTRACTS } from '@petstore/schema/internal';
import type { Request, RequestHandler, Response } from 'express';
import type { AppError } from '../errors.js';

// Written on Node's ServerResponse: Express's `res.send` re-derives type, charset, ETag and freshness every call.

const NO_STORE = (SECURITY_HEADER_CONTRACTS['Cache-Control'] as { value: string }).value;

/**
 * Sends JSON text that is already serialised (the hot routes' bodies, every error answer). HEAD gets the headers
 * only. An error (4xx, 5xx) describes no representation (RFC 9110 section 8.8.3) and is never stored, whatever the
 * route set for its success (the documentation's ETag and max-age): no validator, `no-store`.
 */
export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  if (status >= 400) {
    res.removeHeader('ETag');
    res.removeHeader('Last-Modified');
    res.setHeader('Cache-Control', NO_STORE);
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** An AppError as the interface's Error body, JSON text (an answer's body, or a stream's `error` event). */
export const errorBodyText = (error: AppError): string => JSON.stringify(error.toBody());

/** Sends an AppError as the interface's Error body, with the headers it carries. */
export function sendError(res: ServerResponse, error: AppError): void {
  for (const name in error.headers) res.setHeader(name, error.headers[name] as string);
  sendJsonText(res, error.status, errorBodyText(error));
}

/**
 * `compress` (the `compression` middleware) on a JSON answer, but not for a request without Accept-Encoding: such a
 * request gets the body as it is from compression too, which then only adds `Vary: Accept-Encoding`; its per-response
 * wrapper was 7-16% of a list request's CPU (docs/development.md, the ledger; compression is the oracle of
 * send.test.ts).
 */
export const compressJsonWith =
  (compress: RequestHandler) =>
  (req: Request, res: Response): void => {
    if (req.headers['accept-encoding'] === undefined) res.vary('Accept-Encoding');
    else compress(req, res, () => {});
  };
