// The precondition rules (preconditions.ts) on generated fields: held to the stock part, `fresh` (what Express's
// req.fresh uses), on every well-formed If-None-Match, and to RFC 9110's grammar on malformed ones, which `fresh`
// reads loosely and we ignore.
import fc from 'fast-check';
import fresh from 'fresh';
import { describe, expect, it } from 'vitest';
import { evaluatePreconditions, parseTagList } from './preconditions.js';

/** etagc: `!`, `#` to `~` (commas included), and obs-text. */
const ETAGC = ['a', 'b', '!', '#', '~', '\u00e9', 'W', '/'];
const opaqueOf = (units: string[]) => fc.string({ unit: fc.constantFrom(...units), maxLength: 6 });
const tagOf = (units: string[]) => fc.record({ weak: fc.boolean(), opaque: opaqueOf(units) });
const tag = tagOf([...ETAGC, ',']);
/** Tags `fresh` can read: it splits a field at every comma, also inside a quoted tag. */
const freshTag = tagOf(ETAGC);
const written = ({ weak, opaque: text }: { weak: boolean; opaque: string }) => `${weak ? 'W/' : ''}"${text}"`;
/** A well-formed list: tags joined by commas with optional whitespace, empty elements allowed. */
const separator = fc.constantFrom(',', ', ', ' ,', ',,', ' , ', ',\t');
/** Separators `fresh` reads: it splits at spaces and commas, not at a tab (which RFC 9110's OWS allows). */
const freshSeparator = fc.constantFrom(',', ', ', ' ,', ',,', ' , ');
const listOf = (tags: fc.Arbitrary<{ weak: boolean; opaque: string }>, joiners = separator) =>
  fc
    .tuple(fc.array(tags, { minLength: 1, maxLength: 4 }), joiners, fc.constantFrom('', ' '))
    .map(([list, joiner, pad]) => ({ tags: list, field: `${pad}${list.map(written).join(joiner)}${pad}` }));
const wellFormedList = listOf(tag);

describe('parseTagList', () => {
  it('reads every well-formed list back as the tags written, in order', () => {
    fc.assert(
      fc.property(wellFormedList, ({ tags, field }) => {
        expect(parseTagList(field)).toEqual(tags);
      }),
    );
  });

  it('ignores a field that is not "*" or a list of entity tags, whatever tag it contains', () => {
    for (const field of [
      'xx"a"yy',
      '"a"yy',
      'xx"a"',
      'W/"a" garbage',
      '"a" "b"',
      'a',
      '"a',
      '*, "a"',
      'w/"a"',
      '"a\u0001"',
      '',
      ' , ',
    ])
      expect(parseTagList(field), JSON.stringify(field)).toBeUndefined();
    expect(parseTagList(' * ')).toBe('*');
  });
});

describe('evaluatePreconditions', () => {
  const current = fc.oneof(tag.map(written), fc.constant(undefined));

  it('on GET, answers 304 exactly when `fresh` does, for every well-formed If-None-Match (the stock part as oracle)', () => {
    const field = fc.oneof(
      listOf(freshTag, freshSeparator).map((list) => list.field),
      fc.constant('*'),
    );
    fc.assert(
      fc.property(field, fc.oneof(freshTag.map(written), fc.constant(undefined)), (field, etag) => {
        const stock = fresh({ 'if-none-match': field }, etag === undefined ? {} : { etag });
        const verdict = evaluatePreconditions('GET', { 'if-none-match': field }, etag);
        expect(verdict === 'not-modified', `${field} vs ${etag}`).toBe(stock);
      }),
    );
  });

  it('never matches a malformed If-None-Match, where `fresh` may', () => {
    // `fresh` compares each comma-separated token and never checks the others: `W/"a", garbage` matches to it.
    expect(fresh({ 'if-none-match': 'W/"a", garbage' }, { etag: 'W/"a"' })).toBe(true);
    expect(evaluatePreconditions('GET', { 'if-none-match': 'W/"a", garbage' }, 'W/"a"')).toBe('proceed');
    expect(evaluatePreconditions('GET', { 'if-none-match': 'xx"W/"a""yy' }, 'W/"a"')).toBe('proceed');
  });

  it('stops an unsafe method on a false precondition: 412, never 304', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH'),
        wellFormedList,
        current,
        (method, { tags, field }, etag) => {
          // If-Match compares strongly: a weak tag on either side never matches.
          const strong = etag !== undefined && !etag.startsWith('W/');
          const matches = tags.some((t) => !t.weak && strong && written(t) === etag);
          expect(evaluatePreconditions(method, { 'if-match': field }, etag)).toBe(
            matches ? 'proceed' : 'failed',
          );
          expect(evaluatePreconditions(method, { 'if-none-match': '*' }, etag)).toBe('failed');
          expect(evaluatePreconditions(method, { 'if-match': '*' }, etag)).toBe('proceed');
        },
      ),
    );
  });

  it('holds a malformed If-Match false (it names no tag that could match): the method is not applied', () => {
    for (const field of ['xx"a"yy', '"a", garbage', 'a', '', ' ', 'W/ "a"'])
      expect(evaluatePreconditions('POST', { 'if-match': field }), JSON.stringify(field)).toBe('failed');
    expect(evaluatePreconditions('POST', { 'if-match': '"no-such-tag"' })).toBe('failed');
    expect(evaluatePreconditions('POST', { 'if-match': ' * ' })).toBe('proceed');
  });

  // RFC 9110 sections 13.1.1-2: `*` or a list of tags, never both, never `*` twice. Node joins repeated lines with
  // `, `: two `If-None-Match: *` lines were `*, *`, held as if absent, and a createPet under it stored a pet.
  it('never applies a method under a malformed field; a read answers in full, as if it were absent', () => {
    const member = fc.oneof(
      fc.constant('*'),
      tag.map(written),
      fc.constantFrom('garbage', 'w/"a"', '"a', 'W/ "a"', '"a" "b"', '""x', '\u0001'),
    );
    // Members joined as Node joins repeated lines, or as one list; malformed unless it is `*` alone or tags alone.
    const malformed = fc
      .tuple(fc.array(member, { minLength: 1, maxLength: 4 }), fc.constantFrom(', ', ',', ' , ', ',,'))
      .map(([members, joiner]) => ({ members, field: members.join(joiner) }))
      .filter(({ members }) =>
        members.length > 1
          ? members.includes('*') || members.some((m) => !m.endsWith('"'))
          : !/^\*$|"$/.test(members[0] as string),
      );
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'),
        fc.constantFrom('if-match', 'if-none-match'),
        malformed,
        current,
        (method, name, { field }, etag) => {
          const verdict = evaluatePreconditions(method, { [name]: field }, etag);
          const read = method === 'GET' || method === 'HEAD';
          expect(verdict, `${method} ${name}: ${field}`).toBe(
            name === 'if-none-match' && read ? 'proceed' : 'failed',
          );
        },
      ),
    );
  });
});
