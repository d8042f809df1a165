import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePath } from './edge.js';

// normalizePath against the WHATWG URL parser as the oracle (what a normalising proxy, a browser or `new URL`
// makes of a path), on paths of characters the parser does not re-encode: unreserved ones, their percent-encodings,
// dot-segments (also spelled `%2e`), empty segments.
describe('normalizePath', () => {
  const unreserved = fc.constantFrom(...'aZ09-._~'.split(''));
  const encoded = fc.constantFrom('%41', '%7a', '%2e', '%2E', '%7E', '%2D');
  const segment = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.array(fc.oneof(unreserved, encoded), { maxLength: 4 }).map((s) => s.join('')),
    },
    { weight: 2, arbitrary: fc.constantFrom('.', '..', '%2e', '%2E%2e', '.%2e', '') },
  );
  const path = fc.array(segment, { minLength: 1, maxLength: 8 }).map((segments) => `/${segments.join('/')}`);

  it('gives the path a URL parser gives, dot-segments removed and unreserved characters decoded', () => {
    fc.assert(
      fc.property(path, fc.constantFrom('', '?limit=1', '?a=/../b'), (sent, query) => {
        const oracle = new URL(`http://h${sent}`).pathname.replace(/%(2[Ee]|4[1]|7[Aa]|7E|2D)/g, (code) =>
          String.fromCharCode(Number.parseInt(code.slice(1), 16)),
        );
        expect(normalizePath(`${sent}${query}`), sent).toBe(`${oracle}${query}`);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves a reserved character encoded and a path without dot-segments or encodings as it is', () => {
    expect(normalizePath('/v1/pets%2F..%2F1')).toBe('/v1/pets%2F..%2F1');
    expect(normalizePath('/v1/pets/1?x=/./')).toBe('/v1/pets/1?x=/./');
    expect(normalizePath('/v1/x/../pets/./1')).toBe('/v1/pets/1');
  });
});
