import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDirectory } from './data-dir-lock.js';

let dir: string;
let round = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-lock-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const freshDirectory = () => join(dir, `pglite-${round++}`);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/**
 * Another process that tries to take the lock, prints `won` or `busy: <message>`, and then holds what it
 * got until it is killed (or, with `exitAfterWin`, releases it and exits).
 */
function lockInChild(directory: string, { exitAfterWin = false } = {}) {
  const script = `
    const { lockDataDirectory } = await import(${JSON.stringify(new URL('./data-dir-lock.ts', import.meta.url).href)});
    try {
      const lock = await lockDataDirectory(${JSON.stringify(directory)});
      console.log('won');
      if (${exitAfterWin}) { await lock.release(); process.exit(0); }
      setInterval(() => {}, 1000);
    } catch (error) {
      console.log('busy: ' + error.message);
      process.exit(0);
    }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: join(import.meta.dirname, '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const answer = new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve(output.trim());
    });
    child.once('exit', (code) => reject(new Error(`child exited (${code}) without an answer: ${output}`)));
  });
  answer.catch(() => {});
  return { child, answer };
}

/** Writes `pid` where the lock records its owner (SQLite's user_version, bytes 60-63 of the header). */
async function recordOwner(lockFile: string, pid: number): Promise<void> {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(pid);
  const handle = await open(lockFile, 'r+');
  await handle.write(bytes, 0, 4, 60);
  await handle.close();
}

describe('lockDataDirectory', () => {
  it('lets exactly one of two concurrent attempts in a process win, and frees the lock on release', async () => {
    const directory = freshDirectory();
    const results = await Promise.allSettled([lockDataDirectory(directory), lockDataDirectory(directory)]);
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const [refused] = results.filter((result) => result.status === 'rejected');
    expect(String(refused?.reason)).toContain(`is in use by process ${process.pid}`);
    await won[0]?.value.release();
    const again = await lockDataDirectory(directory);
    await again.release();
  });

  it('lets exactly one of two processes starting together win, also over a lock its dead owner left', async () => {
    for (let i = 0; i < 3; i++) {
      const directory = freshDirectory();
      // A lock left behind by an owner that was killed.
      const owner = lockInChild(directory);
      expect(await owner.answer).toBe('won');
      owner.child.kill('SIGKILL');
      await new Promise((resolve) => owner.child.once('exit', resolve));
      const answers = await Promise.all([lockInChild(directory).answer, lockInChild(directory).answer]);
      expect(answers.filter((answer) => answer === 'won')).toHaveLength(1);
      expect(answers.filter((answer) => answer.startsWith('busy: '))).toHaveLength(1);
      for (const child of children.splice(0)) child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses while another process holds it, naming that process, and is taken over once it was killed', async () => {
    const directory = freshDirectory();
    const holder = lockInChild(directory);
    expect(await holder.answer).toBe('won');
    await expect(lockDataDirectory(directory)).rejects.toThrow(
      new RegExp(`is in use by process ${holder.child.pid}\\. It serves one process at a time`),
    );
    holder.child.kill('SIGKILL');
    await new Promise((resolve) => holder.child.once('exit', resolve));
    const lock = await lockDataDirectory(directory);
    await lock.release();
  });

  it('is not blocked by a lock file naming a live but unrelated process (a reused PID)', async () => {
    const directory = freshDirectory();
    await lockInChild(directory, { exitAfterWin: true }).answer;
    await recordOwner(`${directory}.lock.db`, 1); // PID 1 is always alive, and is not our database's owner
    const lock = await lockDataDirectory(directory);
    await lock.release();
  });
});
