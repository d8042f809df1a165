// body-parser's errors as ours: every `type` body-parser or raw-body (the reader under it) can raise, read from
// their sources so that a type added upstream is covered without anyone listing it, and any other error, is a
// 4xx Error body, never a 500.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { fromBodyParser, isJsonContentType } from './body.js';

const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
const bodyParser = dirname(fromExpress.resolve('body-parser/package.json'));
const rawBody = createRequire(join(bodyParser, 'index.js')).resolve('raw-body');
const sources = ['lib/read.js', 'lib/types/raw.js', 'lib/utils.js'].map((file) => join(bodyParser, file));
const upstreamTypes = [
  ...new Set(
    [...sources, rawBody].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/type: '([a-z.]+)'/g)].map((match) => match[1] as string),
    ),
  ),
];

describe('fromBodyParser', () => {
  it('finds the error types in the sources', () => {
    expect(upstreamTypes).toEqual(
      expect.arrayContaining([
        'entity.too.large',
        'encoding.unsupported',
        'request.aborted',
        'request.size.invalid',
      ]),
    );
  });

  it('answers every error, of any type and status, with a 4xx', () => {
    const error = fc.record(
      {
        type: fc.oneof(fc.constantFrom(...upstreamTypes), fc.string(), fc.constant(undefined)),
        status: fc.oneof(fc.integer({ min: 400, max: 599 }), fc.constant(undefined)),
        encoding: fc.oneof(fc.string(), fc.constant(undefined)),
        message: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(error, (raised) => {
        const mapped = fromBodyParser(raised);
        expect(mapped).toBeInstanceOf(AppError);
        expect(mapped.status).toBeGreaterThanOrEqual(400);
        expect(mapped.status).toBeLessThan(500);
      }),
    );
  });

  it('keeps the headers of the size and coding refusals', () => {
    const tooLarge = fromBodyParser({ type: 'entity.too.large' });
    expect([tooLarge.status, tooLarge.code, tooLarge.headers]).toEqual([
      413,
      'payload_too_large',
      { Connection: 'close' },
    ]);
    const coded = fromBodyParser({ type: 'encoding.unsupported', encoding: 'gzip' });
    expect([coded.status, coded.code, coded.headers]).toEqual([
      415,
      'unsupported_media_type',
      { 'Accept-Encoding': 'identity' },
    ]);
  });
});

// RFC 9110 section 8.3.1's grammar, generated: on a well-formed field the verdict is the one the `content-type`
// package (Express's) reads (a JSON type, charset absent or utf-8); a malformed one, which that package reads
// leniently (an unclosed quote as no charset), is refused.
describe('isJsonContentType', () => {
  const contentType = createRequire(fromExpress.resolve('body-parser/package.json'))('content-type') as {
    parse(header: string): { type: string; parameters: Record<string, string> };
  };
  const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,6}$/);
  const quoted = fc
    .array(fc.oneof(fc.stringMatching(/^[ !#-[\]-~]$/), fc.constantFrom('\\"', '\\\\', '\\a')), {
      maxLength: 6,
    })
    .map((parts) => `"${parts.join('')}"`);
  const charsets = fc.constantFrom(
    'utf-8',
    'UTF-8',
    '"utf-8"',
    '"UTF-8"',
    '"utf\\-8"',
    'latin1',
    '"utf-16"',
    'utf8',
  );
  const ows = fc.constantFrom('', ' ', '\t', '  ');
  const parameter = fc.tuple(
    ows,
    ows,
    fc.oneof(
      fc.tuple(
        token.filter((name) => name.toLowerCase() !== 'charset'),
        fc.oneof(token, quoted),
      ),
      fc.tuple(fc.constantFrom('charset', 'Charset'), charsets),
    ),
  );
  const header = fc
    .tuple(
      fc.constantFrom(
        'application/json',
        'Application/JSON',
        'application/problem+json',
        'application/vnd.a.b+json',
        'text/json',
        'text/plain',
        'application/jsonx',
        'application/+json',
      ),
      fc
        .array(parameter, { maxLength: 3 })
        .filter(
          (parameters) => parameters.filter(([, , [name]]) => name.toLowerCase() === 'charset').length <= 1,
        ),
    )
    .map(([type, parameters]) => ({
      type,
      parameters,
      text: `${type}${parameters.map(([before, after, [name, value]]) => `${before};${after}${name}=${value}`).join('')}`,
    }));

  it('gives the verdict of the content-type package on every well-formed field', () => {
    fc.assert(
      fc.property(header, ({ text }) => {
        const { type, parameters } = contentType.parse(text);
        const json = type === 'application/json' || /^application\/.+\+json$/.test(type);
        const charset = parameters.charset?.toLowerCase();
        expect(isJsonContentType(text), text).toBe(json && (charset === undefined || charset === 'utf-8'));
      }),
    );
  });

  it('refuses a malformed field: an unclosed quote, a parameter without a value, a character no token has', () => {
    const corrupt = fc.constantFrom(
      '; charset="utf-8',
      '; charset',
      ';x=@',
      '; =utf-8',
      ' charset=utf-8',
      ';x="a\\',
    );
    fc.assert(
      fc.property(header, corrupt, ({ text }, tail) => {
        expect(isJsonContentType(`${text}${tail}`), `${text}${tail}`).toBe(false);
      }),
    );
    // Two charsets are refused, even two utf-8 ones, where the package keeps the last: a JSON field with one more
    // charset parameter anywhere among its others (any case, quoted or not) is never read.
    expect(isJsonContentType('application/json; charset=latin1; charset=utf-8')).toBe(false);
    fc.assert(
      fc.property(
        header.filter(({ type }) => type === 'application/json' || type.endsWith('+json')),
        fc.constantFrom('charset', 'CHARSET', 'Charset'),
        fc.constantFrom('utf-8', '"utf-8"', 'UTF-8', 'latin1'),
        fc.nat(3),
        ({ type, parameters }, name, value, at) => {
          const all = parameters.map(([before, after, [key, text]]) => `${before};${after}${key}=${text}`);
          if (!parameters.some(([, , [key]]) => key.toLowerCase() === 'charset')) all.push('; charset=utf-8');
          all.splice(at % (all.length + 1), 0, `; ${name}=${value}`);
          expect(isJsonContentType(`${type}${all.join('')}`), `${type}${all.join('')}`).toBe(false);
        },
      ),
    );
    expect(isJsonContentType('application/json; charset="utf-8"; ')).toBe(true);
  });
});
