import { describe, expect, it } from 'vitest';
import { createEventStreamParser, type EventStreamItem } from './event-stream.js';

const parseAll = (text: string, lastEventId?: string) => createEventStreamParser(lastEventId).feed(text);

/** The same stream fed one character at a time: what the parser returns must not depend on the split. */
function parseByCharacter(text: string): EventStreamItem[] {
  const parser = createEventStreamParser();
  return [...text].flatMap((char) => parser.feed(char));
}

describe('text/event-stream parser (WHATWG HTML 9.2.6)', () => {
  it('reads id, event and data, one event per blank line, "message" by default', () => {
    const text = 'id: 1\nevent: pet.created\ndata: {"id":1}\n\ndata: plain\n\n';
    expect(parseAll(text)).toEqual([
      { type: 'event', event: 'pet.created', data: '{"id":1}', lastEventId: '1' },
      { type: 'event', event: 'message', data: 'plain', lastEventId: '1' },
    ]);
  });

  it('joins data lines with LF, and takes CRLF, CR and LF alike, however the text is split', () => {
    const lf = 'id: 7\ndata: a\ndata:b\ndata\ndata:  c\n\n';
    const expected = [{ type: 'event', event: 'message', data: 'a\nb\n\n c', lastEventId: '7' }];
    expect(parseAll(lf)).toEqual(expected);
    for (const ending of ['\r\n', '\r']) {
      const text = lf.replaceAll('\n', ending);
      expect(parseAll(text), JSON.stringify(ending)).toEqual(expected);
      expect(parseByCharacter(text), JSON.stringify(ending)).toEqual(expected);
    }
    // A CRLF split between two pieces is one line end, not an empty line after a CR.
    const parser = createEventStreamParser();
    expect(parser.feed('data: x\r')).toEqual([]);
    expect(parser.feed('\ndata: y\r\n\r\n')).toEqual([
      { type: 'event', event: 'message', data: 'x\ny', lastEventId: '' },
    ]);
  });

  it('skips comments and unknown fields, reads retry only when it is digits, drops a leading BOM', () => {
    const text = '\uFEFF: keep-alive\n\nretry: 2000\nretry: soon\nfoo: bar\n: hi\ndata: x\n\n';
    expect(parseAll(text)).toEqual([
      { type: 'retry', ms: 2000 },
      { type: 'event', event: 'message', data: 'x', lastEventId: '' },
    ]);
    expect(parseByCharacter(text)).toEqual(parseAll(text));
  });

  it('keeps the last event id across events without one; an id with NUL is ignored; an empty id resets it', () => {
    const text = 'id: 5\ndata: a\n\ndata: b\n\nid: 6\0\ndata: c\n\nid\ndata: d\n\n';
    expect(parseAll(text).map((item) => (item.type === 'event' ? item.lastEventId : item))).toEqual([
      '5',
      '5',
      '5',
      '',
    ]);
    expect(parseAll('data: e\n\n', '41')).toEqual([
      { type: 'event', event: 'message', data: 'e', lastEventId: '41' },
    ]);
  });

  it('an id with no data moves the last event id without an event; an unfinished event is never returned', () => {
    expect(parseAll('id: 9\n\n: keep-alive\n\nevent: x\n\ndata: cut off')).toEqual([
      { type: 'id', lastEventId: '9' },
    ]);
  });
});
