// The table of replies (test/response-table.ts) against the source. scripts/pack-test.mjs runs the same table
// against the packed package (ESM and CommonJS) and its browser bundle in Chromium.
import { describe, expect, it } from 'vitest';
import { checkCase, RESPONSE_CASES } from '../test/response-table.js';
import { createRestClient } from './index.js';

describe('response validation (one table for every build)', () => {
  it.each(RESPONSE_CASES.map((testCase) => [testCase.name, testCase] as const))(
    '%s',
    async (_name, testCase) => {
      expect(await checkCase(createRestClient, testCase)).toBeUndefined();
    },
  );
});
