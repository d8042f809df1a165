import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { killProcess, spawnOwned, withTempDir } from '../test/support/run-registry.js';
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

/**
 * What a process printed that logs `count` lines (pino's, with non-ASCII text, and access-log lines, in turn), then
 * ends this way. The child is killed on every path (a hang ends in the test's timeout, not in a stray process).
 */
async function linesPrintedBy(
  ending: string,
  count: number,
): Promise<{ printed: number[]; code: number | null }> {
  const script = `
    const { createAccessLog, createLogger } = await import(${JSON.stringify(new URL('./logger.ts', import.meta.url).href)});
    const logger = createLogger('info');
    const accessLog = createAccessLog(logger);
    for (let i = 0; i < ${count}; i++) {
      if (i % 2 === 0) logger.info({ i, note: 'ü🐕'.repeat(40 + (i % 40)) }, 'line');
      else accessLog('id', 'GET', '/v1/pets/' + i, 200, 1);
    }
    ${ending}
  `;
  const child = spawnOwned(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
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
  } finally {
    await killProcess(child);
  }
}

describe('no line is lost when the process ends', () => {
  // Abrupt ends get fewer lines than a block (7,270 characters, 10,810 bytes in UTF-8: more than a block): all of
  // them still held by the logger when the process ends. With more, a block handed earlier may still be in sonic-boom's
  // asynchronous write when the process dies, which no logger code can finish (it is so with sonic-boom alone).
  for (const [how, ending, exitCode, count] of [
    ['at process.exit right after the last line', 'process.exit(0);', 0, 40],
    ['on an uncaught exception', "throw new Error('boom');", 1, 40],
    ['when the event loop runs dry', '', 0, 3000],
    ["after main's flush (logger.flush, then exit)", 'logger.flush(() => process.exit(0));', 0, 3000],
  ] as const) {
    it(
      `${how} (${count} lines)`,
      async () => {
        const { printed, code } = await linesPrintedBy(ending, count);
        expect(code).toBe(exitCode);
        expect(printed).toEqual(Array.from({ length: count }, (_, i) => i));
      },
      timeouts.process,
    );
  }
});
