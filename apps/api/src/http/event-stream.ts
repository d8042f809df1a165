import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyJson } from '@petstore/schema';
import { toAppError } from '../errors.js';
import { errorBodyText } from './send.js';

// A streaming operation's REST answer: Server-Sent Events (the WHATWG HTML standard, section 9.2), one event per
// item the operation yields. Written straight on Node's response, with backpressure: the next event is asked of the
// operation only once the previous one was taken by the socket, so nothing queues here for a client that reads
// slowly; one that stops reading is closed by the operation (its stall rule), never buffered without bound.

/** An item of a stream: its id (the `id:` field, what `Last-Event-ID` sends back) and its kind (`event:`). */
interface StreamedEvent {
  id: bigint;
  kind: string;
}

/** A stream's events, and where it stands: the last id it passed (delivered, or left out by a filter). */
export interface PositionedEvents extends AsyncIterable<StreamedEvent> {
  position?(): bigint;
}

export interface EventStreamOptions {
  /** A comment line this often keeps an idle connection open through proxies (and tells a dead one). */
  keepAliveMs: number;
  /** The `retry:` an EventSource waits before it reconnects, in milliseconds. */
  retryMs: number;
  /** An error that is not an AppError, for the logs (the stream is then cut, so the client reconnects). */
  onInternalError: (error: unknown, req: IncomingMessage) => void;
}

/** One event as its lines: `id:`, `event:` and one `data:` line of JSON (JSON text holds no raw line break). */
const eventText = (event: StreamedEvent) =>
  `id: ${event.id}\nevent: ${event.kind}\ndata: ${stringifyJson(event)}\n\n`;

/**
 * Answers `req` with the events of `events`, until the client goes (the response's close stops the operation: the
 * caller listens for it, rest.ts), the operation ends (the response ends), or it fails: an AppError mid-stream (`events_expired`) is sent as an
 * `error` event carrying the Error body, then the stream ends; anything else is logged and the connection is cut.
 * A HEAD gets the headers only.
 */
export async function sendEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  events: PositionedEvents,
  { keepAliveMs, retryMs, onInternalError }: EventStreamOptions,
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  // Never held back by a proxy that buffers answers (nginx); like every answer, never cached (no-store).
  res.setHeader('X-Accel-Buffering', 'no');
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  // The caller aborts the operation when the client goes (rest.ts listens for that before the operation runs).
  const closed = () => res.destroyed || !res.writable;
  // The position the stream starts from, as an id-only block: a client that drops before its first event resumes
  // from here (an EventSource keeps the id of a block without data), not from "now" again. Each keep-alive moves it
  // on past events a filter left out, so that a filtered client resumes where the stream was, not at its last match.
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
    // Not awaited: an iterator waiting for its next event ends when the response's close aborts the operation;
    // its return() settles then.
    iterator.return?.()?.catch(() => {});
  }
}

/**
 * Resolves once the socket took what was written (`drain`) or the client went (`close`, `error`, or destroyed
 * already), leaving no listener.
 */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      res.off('error', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    res.on('error', done);
  });
}
