// body-parser's errors as ours: every `type` body-parser or raw-body (the reader under it) can raise, read from
// their sources so that a type added upstream is covered without anyone listing it, and any other error, is a
// 4xx Error body, never a 500.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { fromBodyParser } from './body.js';

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
