// A Server-Sent Events reader for tests: fetch, then eventsource-parser (the WHATWG framing) over what arrives,
// event by event. The clients' own readers are tested in @petstore/client.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The next event; undefined when the stream ended. */
  next(): Promise<SseEvent | undefined>;
  /** The next `count` events (fails if the stream ends first). */
  take(count: number): Promise<SseEvent[]>;
  close(): void;
}

/** Opens `url` with `headers`; the caller reads events with next()/take() and must close() it. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const stop = new AbortController();
  const response = await fetch(url, { headers, signal: stop.signal });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  const parsed: SseEvent[] = [];
  const parser = createParser({
    onEvent: ({ id, event, data }: EventSourceMessage) =>
      void parsed.push({ id, event: event ?? 'message', data }),
  });
  const next = async (): Promise<SseEvent | undefined> => {
    while (parsed.length === 0) {
      const chunk = await reader?.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk === undefined || chunk.done) return undefined;
      parser.feed(chunk.value);
    }
    return parsed.shift();
  };
  return {
    status: response.status,
    headers: response.headers,
    next,
    async take(count) {
      const events: SseEvent[] = [];
      while (events.length < count) {
        const event = await next();
        if (event === undefined)
          throw new Error(`the stream ended after ${events.length} of ${count} events`);
        events.push(event);
      }
      return events;
    },
    close: () => stop.abort(),
  };
}
