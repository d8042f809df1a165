import type { ServerResponse } from 'node:http';
import type { AppError } from '../errors.js';

// Written on Node's ServerResponse: Express's `res.send` re-derives type, charset, ETag and freshness every call.

/** Sends JSON text that is already serialised (the hot routes' bodies). HEAD gets the headers only. */
export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
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
