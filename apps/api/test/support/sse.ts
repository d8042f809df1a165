// A Server-Sent Events reader for tests: fetch, then the WHATWG HTML framing (section 9.2.6) of what arrives, event
// by event. Small on purpose: the clients' own readers are tested in @petstore/client.

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body text of a non-stream answer (an Error body). */
  text(): Promise<string>;
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
  let buffer = '';
  let lastId: string | undefined;
  const next = async (): Promise<SseEvent | undefined> => {
    for (;;) {
      const end = buffer.search(/\r\n\r\n|\n\n|\r\r/);
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 4 : 2));
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split(/\r\n|\n|\r/)) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
          else if (field === 'id') lastId = value;
        }
        if (data.length > 0) return { id: lastId, event, data: data.join('\n') };
        continue;
      }
      const chunk = await reader?.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk === undefined || chunk.done) return undefined;
      buffer += chunk.value;
    }
  };
  return {
    status: response.status,
    headers: response.headers,
    text: () => response.text(),
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
