import { READ_AFTER_HEADER } from '@petstore/schema';
import { parseReadPosition } from '@petstore/schema/internal';
import { describe, expect, it } from 'vitest';
import { readAfterFetch } from './read-after.js';

/** A fetch that answers each request with the next of `positions` (undefined: no header), recording what it got. */
function fakeService(positions: (string | undefined)[]) {
  const sent: (string | null)[] = [];
  const fetch = (async (_input: string | URL | Request, init?: RequestInit) => {
    sent.push(new Headers(init?.headers).get(READ_AFTER_HEADER));
    const position = positions.shift();
    return new Response('{}', { headers: position === undefined ? {} : { [READ_AFTER_HEADER]: position } });
  }) as typeof globalThis.fetch;
  return { fetch, sent };
}

describe('read-your-writes: the client sends back the latest database position it was given', () => {
  it('sends nothing until a position comes, then the highest one seen (WAL positions compare as numbers)', async () => {
    const service = fakeService([undefined, '0/9A', undefined, '0/1F', '1/0', undefined]);
    const fetch = readAfterFetch(service.fetch);
    for (let i = 0; i < 6; i++)
      await fetch('http://127.0.0.1/v1/pets', { headers: { accept: 'application/json' } });
    expect(service.sent).toEqual([null, null, '0/9A', '0/9A', '0/9A', '1/0']);
  });

  it('ignores a header that is not a position', async () => {
    const service = fakeService(['nonsense', '0/10', 'x/y']);
    const fetch = readAfterFetch(service.fetch);
    for (let i = 0; i < 4; i++) await fetch('http://127.0.0.1/v1/pets');
    expect(service.sent).toEqual([null, null, '0/10', '0/10']);
  });

  it('reads positions as PostgreSQL prints LSNs', () => {
    expect(parseReadPosition('16/B374D848')).toBe(0x16b374d848n);
    expect(parseReadPosition('0/0')).toBe(0n);
    expect(parseReadPosition('16/B374D848 ')).toBeUndefined();
    expect(parseReadPosition(null)).toBeUndefined();
  });
});
