// `text/event-stream` (Server-Sent Events), read as the WHATWG HTML standard says (section 9.2.6, "Interpreting an
// event stream"), for the REST client's feed iterator. Written here rather than taken from eventsource-parser
// because of one rule that parser does not keep and resuming depends on: the last event id is a property of the
// stream, not of one event. It survives events that carry no `id:` line, and an event with an id but no data
// (`id: 42` then a blank line) still moves it, though nothing is dispatched.

/** What the stream carries, in order: an event, or a new reconnection time (`retry:`). */
export type EventStreamItem =
  | {
      type: 'event';
      /** `event:`, `message` when the event has none. */
      event: string;
      /** The `data:` lines joined by line feeds. */
      data: string;
      /** The stream's last event id once this event was read (its own `id:`, or the last one before it). */
      lastEventId: string;
    }
  | { type: 'retry'; ms: number }
  /** An event with no data whose `id:` moved the last event id: nothing to dispatch, but resume after it. */
  | { type: 'id'; lastEventId: string };

export interface EventStreamParser {
  /** Reads the next piece of the stream's text (any split: mid-line, mid-CRLF) and returns what it completed. */
  feed(text: string): EventStreamItem[];
}

/**
 * A parser for one connection's stream (a new connection starts a new parser, with the last event id it resumes
 * from). Lines end in CRLF, LF or CR; a leading byte order mark is dropped; `:` lines are comments; an event not
 * ended by a blank line before the stream ends is never returned.
 */
export function createEventStreamParser(lastEventId = ''): EventStreamParser {
  let pending = '';
  let started = false;
  // A CR ended the previous piece: an LF at the start of the next one is the rest of that CRLF.
  let afterCarriageReturn = false;
  let eventType = '';
  let data: string[] = [];
  let idBuffer = lastEventId;
  let dispatchedId = lastEventId;

  function line(text: string, out: EventStreamItem[]) {
    if (text === '') {
      const idMoved = idBuffer !== dispatchedId;
      dispatchedId = idBuffer;
      if (data.length === 0) {
        if (idMoved) out.push({ type: 'id', lastEventId: idBuffer });
      } else {
        out.push({
          type: 'event',
          event: eventType || 'message',
          data: data.join('\n'),
          lastEventId: idBuffer,
        });
      }
      eventType = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') eventType = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') {
      if (!value.includes('\0')) idBuffer = value;
    } else if (field === 'retry') {
      if (/^[0-9]+$/.test(value)) out.push({ type: 'retry', ms: Number(value) });
    }
  }

  return {
    feed(text) {
      let chunk = text;
      if (!started && chunk !== '') {
        started = true;
        if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
      }
      if (afterCarriageReturn && chunk.startsWith('\n')) chunk = chunk.slice(1);
      afterCarriageReturn = false;
      const out: EventStreamItem[] = [];
      const all = pending + chunk;
      let start = 0;
      for (let end = 0; end < all.length; end++) {
        const char = all[end];
        if (char !== '\r' && char !== '\n') continue;
        line(all.slice(start, end), out);
        if (char === '\r') {
          if (end + 1 === all.length) afterCarriageReturn = true;
          else if (all[end + 1] === '\n') end++;
        }
        start = end + 1;
      }
      pending = all.slice(start);
      return out;
    },
  };
}
