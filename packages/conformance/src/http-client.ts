import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseJson } from '@petstore/schema';

/** What the suite sent, kept so a failure can be reproduced by hand. */
export interface SentRequest {
  method: string;
  /** Relative to the base URL: `/pets?limit=1`. */
  path: string;
  /** The absolute URL. */
  url: string;
  /** Headers as sent, `Authorization` included (the report redacts the key). */
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** One request and the response it got. */
export interface Exchange {
  request: SentRequest;
  status: number;
  headers: Headers;
  /** The body exactly as received (decoded as UTF-8). */
  text: string;
  /** The body read int64-exactly (integers past 2^53 as bigint); undefined when empty or not JSON. */
  json: unknown;
  /** Why the body is not JSON, when it is not empty and does not parse. */
  jsonError?: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent byte for byte: objects are never serialised here, so each check controls the exact text. */
  body?: string | Uint8Array;
  /**
   * `'key'` (default) sends `Authorization: Bearer <the API key>`; `null` sends none; any other string is sent
   * as the Authorization header verbatim.
   */
  auth?: 'key' | string | null;
  /**
   * Use node:http instead of fetch: fetch adds `Content-Type: text/plain` to a string body that has none and
   * normalises some paths, which a few checks must avoid.
   */
  raw?: boolean;
}

export interface HttpClient {
  readonly baseUrl: string;
  readonly apiKey: string;
  send(path: string, options?: RequestOptions): Promise<Exchange>;
  /** Every exchange so far, in order (the cross-cutting response checks read them). */
  readonly log: readonly Exchange[];
  /** The most recent request, for reproducing a failure that has no exchange of its own (a network error). */
  readonly lastRequest: SentRequest | undefined;
}

export interface HttpClientOptions {
  /** Ends in `/v1`, no trailing slash. */
  baseUrl: string;
  apiKey: string;
  /** Per request. */
  timeoutMs: number;
}

// ignoreBOM keeps a leading U+FEFF: JSON text must not start with one (RFC 8259), so it must not be hidden.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

const MAX_RATE_LIMIT_RETRIES = 5;
const MAX_RETRY_AFTER_MS = 60_000;

function readBody(status: number, headers: Headers, bytes: Uint8Array, request: SentRequest): Exchange {
  const text = utf8.decode(bytes);
  const exchange: Exchange = { request, status, headers, text, json: undefined };
  if (text !== '') {
    try {
      exchange.json = parseJson(text);
    } catch (error) {
      exchange.jsonError = (error as Error).message;
    }
  }
  return exchange;
}

function sendRaw(request: SentRequest, timeoutMs: number): Promise<Exchange> {
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: request.method, headers: request.headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve(readBody(res.statusCode ?? 0, headers, Buffer.concat(chunks), request));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/** The suite's only way to talk to a deployment: plain HTTP, nothing known of the implementation. */
export function createHttpClient({ baseUrl, apiKey, timeoutMs }: HttpClientOptions): HttpClient {
  const log: Exchange[] = [];
  let lastRequest: SentRequest | undefined;

  return {
    baseUrl,
    apiKey,
    log,
    get lastRequest() {
      return lastRequest;
    },
    async send(path, options = {}) {
      const { method = 'GET', body, auth = 'key', raw = false } = options;
      const headers: Record<string, string> = {};
      if (auth === 'key') headers.authorization = `Bearer ${apiKey}`;
      else if (auth !== null) headers.authorization = auth;
      for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
      const request: SentRequest = { method, path, url: `${baseUrl}${path}`, headers, body };
      lastRequest = request;

      const once = async (): Promise<Exchange> => {
        if (raw) return sendRaw(request, timeoutMs);
        const response = await fetch(request.url, {
          method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const bytes = new Uint8Array(await response.arrayBuffer());
        return readBody(response.status, response.headers, bytes, request);
      };

      let exchange = await once();
      // A deployment may rate-limit (429 rate_limited with Retry-After). The suite sends a few hundred requests
      // in seconds, so it waits as told and retries rather than report the limit as a deviation.
      for (let retry = 0; exchange.status === 429 && retry < MAX_RATE_LIMIT_RETRIES; retry += 1) {
        const seconds = Number(exchange.headers.get('retry-after'));
        const waitMs = Math.min(
          Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000,
          MAX_RETRY_AFTER_MS,
        );
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        exchange = await once();
      }
      log.push(exchange);
      return exchange;
    },
  };
}
