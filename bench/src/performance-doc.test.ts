import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { measurement } from './measurement-fixture.js';
import {
  blockOf,
  PERFORMANCE_DOC,
  parseRecord,
  RECORD_FILE,
  recordRun,
  renderBlock,
  stringifyRecord,
} from './performance-doc.js';
import { evaluateTargets, type Row, renderStartupTable, renderTable, renderTargets } from './report.js';

const run = measurement;

describe('docs/performance.md', () => {
  it('shows exactly the figures of the last recorded run (bench/last-run.json)', () => {
    const expected = renderBlock(parseRecord(readFileSync(RECORD_FILE, 'utf8')));
    // On failure: `pnpm --filter @petstore/bench docs:performance` rewrites the block from the record.
    expect(blockOf(readFileSync(PERFORMANCE_DOC, 'utf8'))).toBe(expected);
  });

  it('renders a recorded run as the bench printed it', () => {
    const rows: Row[] = ['list20', 'create'].flatMap((scenario, i) =>
      [50, 1].map((connections) => ({
        scenario,
        connections,
        runs: {
          api: [run(700 + i, 20, 200, 120), run(650, 22, 210, 125), run(720, 19, 190, 119)],
          raw: [run(1000, 10, 100, 100), run(990, 11, 99, 101), run(1010, 10, 101, 99)],
          naive: [run(500, 30, 250, 150), run(510, 31, 260, 151), run(490, 29, 240, 149)],
          // A server that did not run (a run before it existed) is kept as null and shown as –.
          fastify: [],
          'fastify-prod': [],
        },
      })),
    );
    const startup = {
      api: [250, 260, 400],
      raw: [100, 90, 95],
      naive: [300, 310, 305],
      fastify: [],
      'fastify-prod': [],
    };
    const recorded = recordRun(
      { rounds: 3, rows, startup },
      { date: '2026-11-25', command: 'pnpm bench', machine: 'm', conditions: 'c' },
    );
    const block = renderBlock(parseRecord(stringifyRecord(recorded)));
    expect(block).toContain(renderTable(rows, 3));
    expect(block).toContain(renderStartupTable(startup));
    expect(block).toContain(renderTargets(evaluateTargets(rows, startup)));
    expect(block).toContain('Not in this run: fastify, fastify-prod');
  });
});
