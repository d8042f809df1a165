import { stringifyJson } from '@petstore/schema';
import type { Response } from 'express';

/** Sends a JSON body with int64 (`bigint`) values written exactly. */
export function sendJson(res: Response, status: number, body: unknown): void {
  sendJsonText(res, status, stringifyJson(body));
}

/** Sends JSON text that is already serialised (the hot routes' bodies). */
export function sendJsonText(res: Response, status: number, text: string): void {
  res.status(status).type('application/json').send(text);
}
