import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseJson } from '@petstore/schema';
import { createParser } from 'eventsource-parser';

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
  /**
   * A `text/event-stream` answer (Server-Sent Events), which may never end: `text` is only what was read before
   * the suite stopped reading (every such read is bounded), `events` the complete events in it.
   */
  stream?: StreamedBody;
}

/** One Server-Sent Event as received (the WHATWG HTML standard's framing, section 9.2.6). */
export interface ServerSentEvent {
  /** Its own `id:` field, if it had one. */
  id?: string | undefined;
  /** Its `event:` field, if it had one. */
  event?: string | undefined;
  /** Its `data:` lines, joined with line feeds. */
  data: string;
}

export interface StreamedBody {
  /** The complete events read, in order. */
  events: ServerSentEvent[];
  /** Comment lines (`: keep-alive`), without the colon. */
  comments: string[];
  /** What the framing parser refused (an unknown field, a bad `retry:`). */
  framingErrors: string[];
  /** True when the server ended the stream; false when the suite stopped reading it. */
  ended: boolean;
}

/** A streaming answer being read: its exchange (already in the log) grows as events arrive. */
export interface OpenStream {
  readonly exchange: Exchange;
  /**
   * The next event, or undefined when the stream ended, was closed, or the run's per-request timeout passed since
   * it was opened: reading is always bounded.
   */
  next(): Promise<ServerSentEvent | undefined>;
  /** Stops reading and closes the connection (idempotent): always called, on every path. */
  close(): void;
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
  /**
   * A request whose answer may be a stream (`text/event-stream`): resolves once the head has arrived; the events
   * are then read one by one with `next()`. Any other answer is read whole, as by `send`. Bounded by the timeout.
   */
  openStream(path: string, options?: Omit<RequestOptions, 'raw' | 'body'>): Promise<OpenStream>;
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

const EVENT_STREAM = /^text\/event-stream\b/i;
const isEventStream = (headers: Headers) => EVENT_STREAM.test(headers.get('content-type') ?? '');

/** How long to wait before retrying a 429: its Retry-After, within bounds. */
function retryDelayMs(exchange: Exchange): number {
  const seconds = Number(exchange.headers.get('retry-after'));
  return Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000, MAX_RETRY_AFTER_MS);
}

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

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

const unread = (): StreamedBody => ({ events: [], comments: [], framingErrors: [], ended: false });

/**
 * Reads a `text/event-stream` body as it arrives: each complete event is parsed (eventsource-parser, a WHATWG
 * conformant parser) and handed out by `next()`; `exchange.text` and `exchange.stream` grow with it.
 */
function readEventStream(
  exchange: Exchange & { stream: StreamedBody },
  body: ReadableStream<Uint8Array> | null,
  abort: AbortController,
): OpenStream {
  const queue: ServerSentEvent[] = [];
  let finished = body === null;
  const parser = createParser({
    onEvent: ({ id, event, data }) => {
      const received: ServerSentEvent = { id, event, data };
      exchange.stream.events.push(received);
      queue.push(received);
    },
    onComment: (comment) => exchange.stream.comments.push(comment),
    onError: (error) => exchange.stream.framingErrors.push(error.message),
  });
  const reader = body?.getReader();
  const decoder = new TextDecoder('utf-8');
  const close = () => {
    if (finished) return;
    finished = true;
    abort.abort();
    reader?.cancel().catch(() => {});
  };
  return {
    exchange,
    close,
    async next() {
      while (queue.length === 0 && !finished && reader !== undefined) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch {
          // Aborted: closed here, or the timeout passed.
          finished = true;
          break;
        }
        if (chunk.done) {
          finished = true;
          exchange.stream.ended = true;
          break;
        }
        const text = decoder.decode(chunk.value, { stream: true });
        exchange.text += text;
        parser.feed(text);
      }
      return queue.shift();
    },
  };
}

function sendRaw(request: SentRequest, timeoutMs: number): Promise<Exchange> {
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: request.method, headers: request.headers, timeout: timeoutMs }, (res) => {
      if (EVENT_STREAM.test(res.headers['content-type'] ?? '')) {
        // A stream may never end: its head is the answer here (openStream reads streams).
        res.destroy();
        const headers = headersOf(res.headers);
        resolve({ ...readBody(res.statusCode ?? 0, headers, new Uint8Array(), request), stream: unread() });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        resolve(readBody(res.statusCode ?? 0, headersOf(res.headers), Buffer.concat(chunks), request));
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
  const prepare = (path: string, options: RequestOptions): SentRequest => {
    const { method = 'GET', body, auth = 'key' } = options;
    const headers: Record<string, string> = {};
    if (auth === 'key') headers.authorization = `Bearer ${apiKey}`;
    else if (auth !== null) headers.authorization = auth;
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    const request: SentRequest = { method, path, url: `${baseUrl}${path}`, headers, body };
    lastRequest = request;
    return request;
  };

  return {
    baseUrl,
    apiKey,
    log,
    get lastRequest() {
      return lastRequest;
    },
    async send(path, options = {}) {
      const { method = 'GET', body, raw = false } = options;
      const request = prepare(path, options);
      const { headers } = request;

      const once = async (): Promise<Exchange> => {
        if (raw) return sendRaw(request, timeoutMs);
        const response = await fetch(request.url, {
          method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (isEventStream(response.headers)) {
          // A stream may never end: its head is the answer here (openStream reads streams).
          await response.body?.cancel();
          return {
            ...readBody(response.status, response.headers, new Uint8Array(), request),
            stream: unread(),
          };
        }
        const bytes = new Uint8Array(await response.arrayBuffer());
        return readBody(response.status, response.headers, bytes, request);
      };

      let exchange = await once();
      // A deployment may rate-limit (429 rate_limited with Retry-After). The suite sends a few hundred requests
      // in seconds, so it waits as told and retries rather than report the limit as a deviation.
      for (let retry = 0; exchange.status === 429 && retry < MAX_RATE_LIMIT_RETRIES; retry += 1) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs(exchange)));
        exchange = await once();
      }
      log.push(exchange);
      return exchange;
    },
    async openStream(path, options = {}) {
      const request = prepare(path, options);
      const once = async (): Promise<OpenStream> => {
        // Everything about this answer, the head and every event read, ends by the timeout.
        const abort = new AbortController();
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          redirect: 'manual',
          signal: AbortSignal.any([abort.signal, AbortSignal.timeout(timeoutMs)]),
        });
        if (!isEventStream(response.headers) || request.method === 'HEAD') {
          const bytes = new Uint8Array(await response.arrayBuffer());
          const exchange = readBody(response.status, response.headers, bytes, request);
          return { exchange, next: async () => undefined, close: () => abort.abort() };
        }
        const exchange = {
          ...readBody(response.status, response.headers, new Uint8Array(), request),
          stream: unread(),
        };
        return readEventStream(exchange, response.body, abort);
      };
      let opened = await once();
      for (let retry = 0; opened.exchange.status === 429 && retry < MAX_RATE_LIMIT_RETRIES; retry += 1) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs(opened.exchange)));
        opened = await once();
      }
      log.push(opened.exchange);
      return opened;
    },
  };
}
