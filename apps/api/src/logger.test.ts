import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { spawnOwned, withTempDir } from '../test/support/run-registry.js';
import { LineBlocks } from './logger.js';

/** The destination as createLogger makes it (asynchronous, buffering up to 8 KiB), on a file. */
const destination = (path: string) =>
  pino.destination({ dest: path, sync: false, minLength: 8 * 1024, mkdir: true });

const flushed = (stream: { flush(done: (error?: Error) => void): void }) =>
  new Promise<void>((resolve, reject) => stream.flush((error) => (error ? reject(error) : resolve())));

/** A log line: any Unicode (astral, lone surrogates, NUL), now and then longer than a block. */
const line = fc
  .oneof(
    { weight: 20, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 8_000, maxLength: 20_000 }) },
  )
  .map((text) => `${text}\n`);
const step = fc.oneof(
  { weight: 30, arbitrary: line.map((text) => ({ write: text })) },
  { weight: 1, arbitrary: fc.constant({ flush: true as const }) },
);

describe('LineBlocks (the logger writes its lines a block at a time)', () => {
  it(
    'writes what the destination alone writes: every line, in order, the same bytes, whenever it is flushed',
    async () => {
      await withTempDir('line-blocks', async (dir) => {
        let run = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(step, { maxLength: 200 }), async (steps) => {
            run++;
            const files = { stock: join(dir, `stock-${run}.log`), blocks: join(dir, `blocks-${run}.log`) };
            // The oracle: the destination on its own (sonic-boom's buffering), as the logger wrote before.
            const stock = destination(files.stock);
            const direct = destination(files.blocks);
            const blocks = new LineBlocks(direct);
            // sonic-boom's flush(done) may call back with less than a block still held (pino writes that out at
            // exit with flushSync): both are flushed both ways before the files are read.
            const flushBoth = async () => {
              await Promise.all([flushed(stock), flushed(blocks)]);
              stock.flushSync();
              blocks.flushSync();
            };
            let expected = '';
            try {
              for (const each of [...steps, { flush: true as const }]) {
                if ('write' in each) {
                  stock.write(each.write);
                  blocks.write(each.write);
                  expected += each.write;
                } else {
                  await flushBoth();
                  const [written, oracle] = await Promise.all([
                    readFile(files.blocks),
                    readFile(files.stock),
                  ]);
                  expect(written).toEqual(oracle);
                  expect(written).toEqual(Buffer.from(expected));
                }
              }
            } finally {
              stock.destroy();
              direct.destroy();
            }
          }),
          { numRuns: 40 },
        );
      });
    },
    timeouts.server,
  );
});

/** What a process that logs 3,000 lines (pino's and access-log lines, in turn) then ends this way printed. */
async function linesPrintedBy(ending: string): Promise<{ printed: number[]; code: number | null }> {
  const script = `
    const { createAccessLog, createLogger } = await import(${JSON.stringify(new URL('./logger.ts', import.meta.url).href)});
    const logger = createLogger('info');
    const accessLog = createAccessLog(logger);
    for (let i = 0; i < 3000; i++) {
      if (i % 2 === 0) logger.info({ i }, 'line');
      else accessLog('id', 'GET', '/v1/pets/' + i, 200, 1);
    }
    ${ending}
  `;
  const child = spawnOwned(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  // 'close': the process has exited and its stdout has been read to the end.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const printed = stdout
    .split('\n')
    .filter((text) => text !== '')
    .map((text) => {
      const entry = JSON.parse(text) as { i?: number; path?: string };
      return entry.i ?? Number(entry.path?.slice('/v1/pets/'.length));
    });
  return { printed, code };
}

describe('no line is lost when the process ends', () => {
  const all = Array.from({ length: 3000 }, (_, i) => i);
  for (const [how, ending, exitCode] of [
    ['at process.exit right after the last line', 'process.exit(0);', 0],
    ['when the event loop runs dry', '', 0],
    ['on an uncaught exception', "throw new Error('boom');", 1],
    ["after main's flush (logger.flush, then exit)", 'logger.flush(() => process.exit(0));', 0],
  ] as const) {
    it(
      how,
      async () => {
        const { printed, code } = await linesPrintedBy(ending);
        expect(code).toBe(exitCode);
        expect(printed).toEqual(all);
      },
      timeouts.process,
    );
  }
});
