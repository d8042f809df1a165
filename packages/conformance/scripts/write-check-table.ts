// Rewrites the check table of README.md from the checks themselves (`pnpm --filter @petstore/conformance
// readme:checks`); a test fails when the README and the checks disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { checkTable } from '../src/check-table.js';

const file = new URL('../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const start = '<!-- checks:start -->';
const end = '<!-- checks:end -->';
const from = readme.indexOf(start);
const to = readme.indexOf(end);
if (from === -1 || to < from) throw new Error(`README.md has no ${start} ... ${end} section`);
writeFileSync(file, `${readme.slice(0, from + start.length)}\n${checkTable()}\n${readme.slice(to)}`);
