import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { stringifyJson } from '@petstore/schema';
import { toAppError } from '../errors.js';
import { errorBodyText } from './send.js';

/** A stream's events (`id:`, what `Last-Event-ID` sends back; `event:` its kind), and the last id it passed. */
export interface PositionedEvents extends AsyncIterable<{ id: bigint; kind: string }> {
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

/**
 * A streaming operation's REST answer as Server-Sent Events, until the client goes (rest.ts stops the operation on
 * the response's close), the operation ends, or it fails: an AppError (`events_expired`) is sent as an `error`
 * event with the Error body; anything else is logged and the connection cut.
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
  // The starting position as an id-only block: a client that drops before its first event resumes from here, not
  // from "now". Each keep-alive moves it past events a filter left out (a filtered client resumes where it was).
  let sentPosition = events.position?.();
  res.write(`retry: ${retryMs}\n\n${sentPosition === undefined ? '' : `id: ${sentPosition}\n\n`}`);
  const keepAlive = setInterval(() => {
    const position = events.position?.();
    res.write(position === sentPosition ? ': keep-alive\n\n' : `: keep-alive\nid: ${position}\n\n`);
    sentPosition = position;
  }, keepAliveMs).unref();
  async function* frames() {
    try {
      for await (const event of events) {
        sentPosition = event.id;
        // One `data:` line of JSON (JSON text holds no raw line break).
        yield `id: ${event.id}\nevent: ${event.kind}\ndata: ${stringifyJson(event)}\n\n`;
      }
    } catch (error) {
      const known = toAppError(error);
      if (known === undefined) onInternalError(error, req);
      if (known !== undefined && !res.destroyed) yield `event: error\ndata: ${errorBodyText(known)}\n\n`;
      else res.destroy();
    }
  }
  // Backpressure (docs/development.md, "Home-made parts"): pipeline asks for the next event only once the socket
  // took the previous one ('drain'), and ends the events (their return()) when the client goes.
  await pipeline(frames(), res)
    .catch(() => {}) // the client went: nothing to answer
    .finally(() => clearInterval(keepAlive));
}
