import { ErrorSchema, parseJson } from '@petstore/schema';
import { expect } from 'vitest';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { rawSend } from './raw-send.js';
import { TEST_API_KEY } from './test-server.js';

export interface Reply {
  status: number;
  headers: Headers;
  /** The body exactly as sent, for int64 and shape assertions on the raw JSON text. */
  text: string;
  /** The body parsed int64-exactly (bigint for integers past 2^53), or undefined if empty. */
  body: unknown;
}

export interface CallOptions {
  method?: string;
  /** Sent as is (string or bytes); objects are not serialised for you, so tests see the exact text. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Defaults to the test key; null sends no Authorization header. */
  apiKey?: string | null;
}

/** One HTTP call with fetch against a real server. */
export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const { method = 'GET', body, apiKey = TEST_API_KEY } = options;
  const headers: Record<string, string> = { ...options.headers };
  if (apiKey !== null && headers.authorization === undefined) headers.authorization = `Bearer ${apiKey}`;
  if (typeof body === 'string' && headers['content-type'] === undefined)
    headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  const reply = { status: response.status, headers: response.headers, text };
  return { ...reply, body: text === '' ? undefined : parseJson(text) };
}

/** A raw request through node:http, for what fetch would normalise away (odd paths, exact headers). */
export async function rawCall(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<Reply> {
  const reply = await rawSend(baseUrl, path, options);
  return { ...reply, body: reply.text === '' ? undefined : parseJson(reply.text) };
}

/** Asserts the interface's Error body: exactly {code, message, status}, status equal to the HTTP status. */
export function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, body: reply.body }).toMatchObject({ status, body: { code, status } });
  expect(ErrorSchema.parse(reply.body).message).not.toBe('');
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.text).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack trace
}

/**
 * Rate limits count in fixed windows of wall-clock minutes (limits/rate-limiter.ts). A test that spends a limit
 * and then expects 429 starts early in a window, so that a minute boundary in the middle (likelier on a busy
 * machine) cannot reset the count: when less than `needMs` of the current minute is left, it waits for the next.
 */
export async function atStartOfRateWindow(needMs = scaled(20_000), windowMs = 60_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
