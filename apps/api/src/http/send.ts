import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { AppError } from '../errors.js';

// Written on Node's ServerResponse: Express's `res.send` re-derives type, charset, ETag and freshness every call.

/**
 * Sends JSON text that is already serialised (the hot routes' bodies, every error answer). HEAD gets the headers
 * only. (An error's head loses any validator on the way out: request-context.ts answerRules.)
 */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  type = 'application/json; charset=utf-8',
): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
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
