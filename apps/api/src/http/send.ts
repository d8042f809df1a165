import { stringifyJson } from '@petstore/schema';
import type { Response } from 'express';

/** Sends a JSON body with int64 (`bigint`) values written exactly. */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('application/json').send(stringifyJson(body));
}
