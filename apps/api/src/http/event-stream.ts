import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyJson } from '@petstore/schema';
import { toAppError } from '../errors.js';
import { errorBodyText } from './send.js';

// A streaming operation's REST answer as Server-Sent Events, with backpressure: the next event is asked of the
// operation only once the socket took the previous one (docs/development.md, "Home-made parts").

/** An item of a stream: its id (the `id:` field, what `Last-Event-ID` sends back) and its kind (`event:`). */
interface StreamedEvent {
  id: bigint;
  kind: string;
}

/** A stream's events, and the last id it passed (delivered, or left out by a filter). */
export interface PositionedEvents extends AsyncIterable<StreamedEvent> {
  position?(): bigint;
}

export interface EventStreamOptions {
  /** A comment line this often keeps an idle connection open through proxies (and tells a dead one). */
  keepAliveMs: number;
  /** The `retry:` an EventSource waits before it reconnects. */
  retryMs: number;
  /** An error that is not an AppError (the stream is then cut, so the client reconnects). */
  onInternalError: (error: unknown, req: IncomingMessage) => void;
}

/** One event as its lines: `id:`, `event:` and one `data:` line of JSON (JSON text holds no raw line break). */
const eventText = (event: StreamedEvent) =>
  `id: ${event.id}\nevent: ${event.kind}\ndata: ${stringifyJson(event)}\n\n`;

/**
 * Answers with `events` until the client goes (rest.ts stops the operation on the response's close), the operation
 * ends, or it fails: an AppError (`events_expired`) is sent as an `error` event with the Error body; anything else
 * is logged and the connection cut.
 */
export async function sendEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  events: PositionedEvents,
  { keepAliveMs, retryMs, onInternalError }: EventStreamOptions,
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  // Never held back by a proxy that buffers answers (nginx).
  res.setHeader('X-Accel-Buffering', 'no');
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const closed = () => res.destroyed || !res.writable;
  // The starting position as an id-only block: a client that drops before its first event resumes from here, not
  // from "now". Each keep-alive moves it past events a filter left out (a filtered client resumes where it was).
  let sentPosition = events.position?.();
  res.write(`retry: ${retryMs}\n\n${sentPosition === undefined ? '' : `id: ${sentPosition}\n\n`}`);
  const keepAlive = setInterval(() => {
    const position = events.position?.();
    res.write(position === sentPosition ? ': keep-alive\n\n' : `: keep-alive\nid: ${position}\n\n`);
    sentPosition = position;
  }, keepAliveMs);
  keepAlive.unref();
  const iterator = events[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true || closed()) break;
      sentPosition = next.value.id;
      if (!res.write(eventText(next.value))) await drainedOrClosed(res);
    }
    res.end();
  } catch (error) {
    const known = toAppError(error);
    if (known !== undefined && !closed()) {
      res.end(`event: error\ndata: ${errorBodyText(known)}\n\n`);
    } else {
      if (known === undefined) onInternalError(error, req);
      res.destroy();
    }
  } finally {
    clearInterval(keepAlive);
    // Not awaited: a waiting iterator's return() settles when the response's close aborts the operation.
    iterator.return?.()?.catch(() => {});
  }
}

/** Resolves once the socket took what was written or the client went, leaving no listener. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  const events = ['drain', 'close', 'error'] as const;
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) res.off(event, done);
      resolve();
    };
    for (const event of events) res.on(event, done);
  });
}
