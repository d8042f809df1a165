import { open, readFile, rm } from 'node:fs/promises';

/**
 * An exclusive claim on an embedded database directory. PGlite happily opens one directory from two processes,
 * and two writers corrupt it, so the second process must refuse to start. The lock file holds the owner's pid;
 * a lock left by a process that no longer runs (a crash, SIGKILL) is taken over.
 */
export async function lockDataDirectory(lockFile: string): Promise<{ release(): Promise<void> }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => rm(lockFile, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
      throw new Error(
        `the embedded database in ${lockFile.replace(/\.lock$/, '')} is in use by process ${owner}. ` +
          'It serves one process at a time: stop that process, choose another DATA_DIR, or use PostgreSQL (DATABASE_URL).',
      );
    }
    await rm(lockFile, { force: true }); // stale: its owner is gone
  }
  throw new Error(`could not lock ${lockFile}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
