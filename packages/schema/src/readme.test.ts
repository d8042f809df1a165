import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as publicEntry from './index.js';

// The README's Usage is the first code a consuming team copies: every name it imports from the package must be
// a value the public entry exports, and it must not reach into `@petstore/schema/internal` (no promise there).
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const codeBlocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const imports = codeBlocks.flatMap((code) =>
  [...code.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(@petstore\/schema[^']*)'/g)].map((match) => ({
    typeOnly: Boolean(match[1]),
    names: (match[2] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    from: match[3] ?? '',
  })),
);

describe('README code blocks', () => {
  it('import from @petstore/schema', () => {
    expect(imports.length).toBeGreaterThan(0);
  });

  it('never import @petstore/schema/internal', () => {
    expect(imports.map((statement) => statement.from).filter((from) => from.endsWith('/internal'))).toEqual(
      [],
    );
  });

  it('import only values the public entry exports', () => {
    const values = imports
      .filter((statement) => statement.from === '@petstore/schema' && !statement.typeOnly)
      .flatMap((statement) => statement.names.filter((name) => !name.startsWith('type ')));
    expect(values.filter((name) => !(name in publicEntry))).toEqual([]);
  });
});
