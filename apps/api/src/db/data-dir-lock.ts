import { open } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { ConfigError, DataDirectoryInUse } from '../config-error.js';

// SQLite result codes: the file is locked by another connection; the file is not an SQLite database.
const SQLITE_BUSY = 5;
const SQLITE_NOTADB = 26;

/**
 * An exclusive claim on an embedded database directory, held through `<directory>.lock.db`: PGlite opens one
 * directory from two processes, and two writers corrupt it. The claim is SQLite's (built into Node) exclusive lock
 * on that file, an OS lock dropped when its process ends however it ends, so a crash leaves no stale lock. The
 * owner's PID (SQLite's user_version) only names it in the error. The file is never deleted: a process may be
 * waiting on it, and a new file would be a second lock.
 */
export async function lockDataDirectory(directory: string): Promise<{ release(): Promise<void> }> {
  const lockFile = `${directory}.lock.db`;
  // Two starters can each hold SQLite's shared lock for a moment and each see the other's, so both would give up
  // (seen under load, also with a busy timeout). A refusal is therefore retried after a short random pause until
  // a deadline: racing starters settle on one winner, while a live owner, which never lets go, is still refused.
  const deadline = Date.now() + 1_000;
  for (;;) {
    const connection = new DatabaseSync(lockFile, { timeout: 100 });
    try {
      connection.exec('PRAGMA journal_mode = MEMORY'); // no journal file next to the lock
      connection.exec('PRAGMA locking_mode = EXCLUSIVE');
      connection.exec(`PRAGMA user_version = ${process.pid}`); // takes the exclusive lock, and keeps it
      return {
        async release() {
          if (connection.isOpen) connection.close();
        },
      };
    } catch (error) {
      connection.close();
      const code = (error as { errcode?: number }).errcode;
      if (code === SQLITE_NOTADB) {
        throw new ConfigError(
          `${lockFile} is not a lock file of this application: move it away and start again`,
        );
      }
      if (code !== SQLITE_BUSY) throw error;
      if (Date.now() > deadline) {
        const owner = await recordedOwner(lockFile);
        throw new DataDirectoryInUse(
          `the embedded database in ${directory} is in use by ${owner === undefined ? 'another process' : `process ${owner}`}. ` +
            'It serves one process at a time: stop that process, choose another DATA_DIR, or use PostgreSQL (DATABASE_URL).',
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 40));
  }
}

/** The PID the current owner wrote (user_version: bytes 60-63 of the header, big-endian). */
async function recordedOwner(lockFile: string): Promise<number | undefined> {
  const handle = await open(lockFile, 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(4), 0, 4, 60);
    const pid = bytesRead === 4 ? buffer.readUInt32BE(0) : 0;
    return pid > 0 ? pid : undefined;
  } finally {
    await handle.close();
  }
}
