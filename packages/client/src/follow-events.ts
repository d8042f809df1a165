// Following a stream operation over REST (Server-Sent Events) as an async iterator that resumes by itself: what an
// EventSource does, plus what it cannot: the bearer key on every request, exact int64 in the events, the schema's
// check of each one, a typed error for a refusal, and backoff (Retry-After on 429) instead of giving up on a 5xx.

import { ErrorSchema, LAST_EVENT_ID_HEADER, parseJson } from '@petstore/schema';
import { PetStoreApiError } from './client-error.js';
import { createEventStreamParser } from './event-stream.js';
import { errorOfReply } from './reply-error.js';
import { type CallOptions, parseRetryAfter, type RetryPolicy, retryDelayMs, sleep } from './retry.js';

/** Per-stream options of a follower. */
export interface FollowOptions extends CallOptions {
  /**
   * How long a connection may carry nothing at all, not even the service's keep-alive comment (every 15 s by
   * default), before it is taken for dead and opened again (default 45 000 ms). Time the consumer spends between
   * two events does not count: nothing is read then.
   */
  idleTimeoutMs?: number;
}

/** What a follower needs from its client. */
export interface FollowDeps<E> {
  fetch: typeof globalThis.fetch;
  /** The headers of every request: the bearer key. */
  headers: Readonly<Record<string, string>>;
  policy: RetryPolicy;
  /** The event kinds (`event:` names) this client knows; others are passed over (a newer service's). */
  kinds: readonly string[];
  /** An event's `data` as the typed event: throws a {@link PetStoreApiError} when it is not one. */
  decode: (data: string, request: string) => E;
}

/** The reconnection time before the service sends its own (`retry:`). */
const DEFAULT_RECONNECT_MS = 1_000;
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

/** A refusal worth trying again: rate limited (after Retry-After), or the service or a gateway failing for now. */
const isTransient = (status: number) => status === 429 || status >= 500;

/** The `error` event the service sends before it ends a stream it cannot go on with (events_expired). */
function errorOfEvent(request: string, data: string): PetStoreApiError {
  let body: unknown;
  try {
    body = parseJson(data);
  } catch {
    body = undefined;
  }
  const error = ErrorSchema.safeParse(body);
  if (!error.success) {
    return new PetStoreApiError(
      'invalid_body',
      `${request} ended with an error event without an Error body`,
      {
        status: 200,
        responseText: data,
      },
    );
  }
  return new PetStoreApiError('api', `${error.data.code} (${error.data.status}): ${error.data.message}`, {
    status: error.data.status,
    error: error.data,
  });
}

/**
 * The events of the stream at `url`, in order, each once. A dropped connection, a network error, a 5xx, a 429 or
 * the end of the stream is followed by a new request after a backoff (the `retry:` the service sent, plus jitter
 * growing with each failure in a row; a 429's Retry-After), carrying `Last-Event-ID`: the last event id read, so
 * the service resumes after it, and an event at or before the last one yielded is never yielded again. The
 * iterator fails with a {@link PetStoreApiError} on any other refusal (401, 400, 410 `events_expired`, ...), an
 * `error` event, an event that breaks the schema, and once it could not reconnect within `timeoutMs` (or at the
 * first failure with `retries: false`). `return()` (a `break` out of `for await`) and the signal close the
 * connection.
 */
export async function* followEventStream<E extends { id: bigint }>(
  deps: FollowDeps<E>,
  url: string,
  options: FollowOptions = {},
): AsyncGenerator<E, void, undefined> {
  const { policy } = deps;
  const request = `GET ${url}`;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  if (typeof idleTimeoutMs !== 'number' || !(idleTimeoutMs > 0)) {
    throw new TypeError('idleTimeoutMs must be a positive number');
  }
  // Ours: aborted when the iterator is closed, so that a pending request or read ends with it.
  const closed = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, closed.signal]) : closed.signal;
  const aborted = (cause: unknown) => new PetStoreApiError('network', `${request} was aborted`, { cause });

  let lastEventId = '';
  let lastYielded: bigint | undefined;
  let reconnectMs = DEFAULT_RECONNECT_MS;
  // Failed attempts in a row, and when the stream was lost (undefined while connected).
  let failures = 0;
  let lostAt: number | undefined;
  try {
    for (;;) {
      if (options.signal?.aborted) throw aborted(options.signal.reason);
      const connection = new AbortController();
      let failure: PetStoreApiError;
      let retryAfterMs: number | undefined;
      try {
        const response = await deps.fetch(url, {
          method: 'GET',
          headers: {
            accept: 'text/event-stream',
            ...deps.headers,
            ...(lastEventId === '' ? {} : { [LAST_EVENT_ID_HEADER.toLowerCase()]: lastEventId }),
          },
          signal: AbortSignal.any([signal, connection.signal]),
        });
        if (response.status !== 200) {
          failure = errorOfReply(request, response.status, await response.text());
          if (!isTransient(response.status)) throw failure;
          retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        } else if (
          !/^text\/event-stream\s*(;|$)/i.test(response.headers.get('content-type') ?? '') ||
          response.body === null
        ) {
          await response.body?.cancel();
          throw new PetStoreApiError(
            'invalid_body',
            `${request} answered 200 with ${response.headers.get('content-type') ?? 'no content type'}, not text/event-stream`,
            { status: 200 },
          );
        } else {
          failures = 0;
          lostAt = undefined;
          const parser = createEventStreamParser(lastEventId);
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          for (;;) {
            const idle = setTimeout(
              () => connection.abort(new Error(`nothing received for ${idleTimeoutMs} ms`)),
              idleTimeoutMs,
            );
            const chunk = await reader.read().finally(() => clearTimeout(idle));
            if (chunk.done) break;
            for (const item of parser.feed(decoder.decode(chunk.value, { stream: true }))) {
              if (item.type === 'retry') {
                reconnectMs = item.ms;
                continue;
              }
              lastEventId = item.lastEventId;
              if (item.type !== 'event') continue;
              if (item.event === 'error') throw errorOfEvent(request, item.data);
              if (!deps.kinds.includes(item.event)) continue;
              const event = deps.decode(item.data, request);
              if (lastYielded !== undefined && event.id <= lastYielded) continue;
              lastYielded = event.id;
              yield event;
            }
          }
          failure = new PetStoreApiError('network', `${request}: the service ended the stream`);
        }
      } catch (error) {
        if (error instanceof PetStoreApiError) throw error;
        if (options.signal?.aborted) throw aborted(options.signal.reason);
        const reason = connection.signal.aborted ? connection.signal.reason : error;
        failure = new PetStoreApiError(
          'network',
          `${request} lost its connection: ${reason instanceof Error ? reason.message : String(reason)}`,
          { cause: reason },
        );
      } finally {
        connection.abort();
      }
      failures++;
      lostAt ??= Date.now();
      const delay =
        retryAfterMs === undefined
          ? reconnectMs + (retryDelayMs(policy, failures) ?? 0)
          : retryDelayMs(policy, failures, retryAfterMs);
      if (policy.attempts === 1 || delay === undefined || Date.now() - lostAt + delay > policy.timeoutMs) {
        throw failure;
      }
      await sleep(delay, signal).catch((reason: unknown) => {
        throw aborted(reason);
      });
    }
  } finally {
    closed.abort();
  }
}
