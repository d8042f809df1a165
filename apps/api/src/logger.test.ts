import { describe, expect, it } from 'vitest';
import { timeouts } from '../../../tooling/vitest.shared.js';
import { killProcess, spawnOwned } from '../test/support/run-registry.js';

// What a user of the logger relies on, through createLogger's own destination (pino's, asynchronous and buffered):
// the lines appear while the process runs, in order, and none is lost when the process ends.

const LOGGER = JSON.stringify(new URL('./logger.ts', import.meta.url).href);

/** The line numbers of what a child process printed (pino's lines carry `i`, access-log lines it in the path). */
const numbersOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter((text) => text !== '')
    .map((text) => {
      const entry = JSON.parse(text) as { i?: number; path?: string };
      return entry.i ?? Number(entry.path?.slice('/v1/pets/'.length));
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
    const { createAccessLog, createLogger } = await import(${LOGGER});
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
    return { printed: numbersOf(stdout), code };
  } finally {
    await killProcess(child);
  }
}

describe('no line is lost when the process ends', () => {
  // An abrupt end (process.exit, a crash) writes synchronously what the destination still holds: these write fewer
  // bytes than a block (8 KiB), all of it held. Past a block, sonic-boom has started an asynchronous write, which
  // nothing can finish before an abrupt exit: its lines then come after the ones written at exit (seen here with 40
  // lines). main's shutdown flushes first (logger.flush, then exit), which keeps every line in order.
  for (const [how, ending, exitCode, count] of [
    ['at process.exit right after the last line', 'process.exit(0);', 0, 24],
    ['on an uncaught exception', "throw new Error('boom');", 1, 24],
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

describe('lines appear while the process runs', () => {
  it(
    "a quiet server's few lines are written without waiting for a block to fill or the process to end",
    async () => {
      // Three short lines (far less than the destination's 8 KiB block), then the process stays up.
      const script = `
        const { createLogger } = await import(${LOGGER});
        const logger = createLogger('info');
        for (let i = 0; i < 3; i++) logger.info({ i }, 'line');
        setInterval(() => {}, 60_000);
      `;
      const child = spawnOwned(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      try {
        let stdout = '';
        // Waits (up to the test's timeout) for the three lines, while the process is still running.
        await new Promise<void>((resolve, reject) => {
          child.once('exit', (code) =>
            reject(new Error(`the process exited (${code}) before its lines appeared`)),
          );
          child.stdout?.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            if (stdout.split('\n').length > 3) resolve();
          });
        });
        expect(numbersOf(stdout)).toEqual([0, 1, 2]);
        expect(child.exitCode).toBeNull();
      } finally {
        await killProcess(child);
      }
    },
    timeouts.process,
  );
});

describe('the access log line', () => {
  it('says who asked what and how it went, and nothing else', async () => {
    const { pino } = await import('pino');
    const { createAccessLog } = await import('./logger.js');
    const lines: string[] = [];
    const logger = pino({ level: 'info', base: undefined }, { write: (line: string) => lines.push(line) });
    const log = createAccessLog(logger) as NonNullable<ReturnType<typeof createAccessLog>>;
    log('req-1', 'GET', '/v1/pets/"x"', 404, 1.23456);
    log(
      'req-2',
      'POST',
      '/v1/pets',
      201,
      0.5,
      '0af7651916cd43dd8448eb211c80319c',
      'key:0123456789abcdef0123456789abcdef',
    );
    const [first, second] = lines.map((line) => JSON.parse(line));
    expect(first).toEqual({
      level: 30,
      time: first.time,
      requestId: 'req-1',
      method: 'GET',
      path: '/v1/pets/"x"',
      status: 404,
      ms: 1.235,
      msg: 'request',
    });
    expect(second).toMatchObject({
      requestId: 'req-2',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      caller: 'key:0123456789abcdef0123456789abcdef',
      status: 201,
    });
    expect(createAccessLog(pino({ level: 'warn' }, { write: () => {} }))).toBeUndefined();
  });
});
