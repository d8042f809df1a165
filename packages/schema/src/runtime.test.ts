import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertExactJsonSupport } from './index.js';

type JsonWithRaw = typeof JSON & { rawJSON?: (text: string) => unknown };
const json = JSON as JsonWithRaw;
const { rawJSON } = json;
const { parse } = JSON;

afterEach(() => {
  json.rawJSON = rawJSON;
  JSON.parse = parse;
});

const RUNTIMES = '(Node >= 22, Chrome/Edge >= 114, Firefox >= 135, Safari >= 18.4)';
const NEEDS = `@petstore/schema needs JSON.rawJSON and JSON.parse source text ${RUNTIMES}`;
const node = process.versions.node;

/** What Node 20 does: the reviver is called with (key, value) only. */
function dropSourceText(): void {
  JSON.parse = (text, reviver) =>
    parse(text, reviver === undefined ? undefined : (key, value) => reviver.call(undefined, key, value));
}

describe('assertExactJsonSupport', () => {
  it('passes on this Node', () => {
    expect(() => assertExactJsonSupport()).not.toThrow();
  });

  it('names what is needed, where, and what is missing when JSON.rawJSON is missing', () => {
    delete json.rawJSON;
    expect(() => assertExactJsonSupport()).toThrow(
      `${NEEDS}; this is Node ${node}, which lacks JSON.rawJSON`,
    );
  });

  it('throws a clear message when a reviver gets no source text', () => {
    dropSourceText();
    expect(() => assertExactJsonSupport()).toThrow(
      `${NEEDS}; this is Node ${node}, which lacks JSON.parse source text`,
    );
  });

  it('names the package that asks and its own features and runtimes', () => {
    delete json.rawJSON;
    dropSourceText();
    expect(() =>
      assertExactJsonSupport({
        packageName: '@petstore/client',
        runtimes: 'Node >= 22, Chrome >= 116',
        features: { 'AbortSignal.any': false },
      }),
    ).toThrow(
      '@petstore/client needs JSON.rawJSON, JSON.parse source text and AbortSignal.any (Node >= 22, Chrome >= 116); ' +
        `this is Node ${node}, which lacks JSON.rawJSON, JSON.parse source text and AbortSignal.any`,
    );
  });
});

describe('the int64-exact helpers on a runtime without the JSON features', () => {
  // A fresh copy of the module: the check is remembered once it has passed.
  const freshHelpers = async () => {
    vi.resetModules();
    return import('./json.js');
  };

  it('parseJson refuses rather than round 2^53+1', async () => {
    const { parseJson } = await freshHelpers();
    dropSourceText();
    expect(() => parseJson('{"categoryId":9007199254740993}')).toThrow(NEEDS);
  });

  it('stringifyJson refuses rather than fail on JSON.rawJSON mid-call', async () => {
    const { stringifyJson } = await freshHelpers();
    delete json.rawJSON;
    expect(() => stringifyJson({ categoryId: 9007199254740993n })).toThrow(NEEDS);
  });
});
