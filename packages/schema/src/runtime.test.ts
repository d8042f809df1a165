import { afterEach, describe, expect, it } from 'vitest';
import { assertExactJsonSupport } from './index.js';

type JsonWithRaw = typeof JSON & { rawJSON?: (text: string) => unknown };
const json = JSON as JsonWithRaw;
const { rawJSON } = json;
const { parse } = JSON;

afterEach(() => {
  json.rawJSON = rawJSON;
  JSON.parse = parse;
});

const MESSAGE = new RegExp(
  `^@petstore/schema needs Node >= 22 \\(JSON\\.rawJSON and JSON\\.parse source text\\); this is Node ${process.versions.node.replaceAll('.', '\\.')}$`,
);

describe('assertExactJsonSupport', () => {
  it('passes on this Node', () => {
    expect(() => assertExactJsonSupport()).not.toThrow();
  });

  it('throws a clear message when JSON.rawJSON is missing', () => {
    delete json.rawJSON;
    expect(() => assertExactJsonSupport()).toThrow(MESSAGE);
  });

  it('throws a clear message when a reviver gets no source text', () => {
    // What Node 20 does: the reviver is called with (key, value) only.
    JSON.parse = (text, reviver) =>
      parse(text, reviver === undefined ? undefined : (key, value) => reviver.call(undefined, key, value));
    expect(() => assertExactJsonSupport()).toThrow(MESSAGE);
  });
});
