import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The key a local run uses when API_KEYS is not set: made once per data directory and kept in
 * `<dataDir>/dev-api-key` (mode 0600), so restarting keeps the same key. A deployed environment never gets
 * here: parseConfig refuses APP_ENV=production or staging without API_KEYS.
 */
export async function loadOrCreateDevApiKey(dataDir: string): Promise<string> {
  const file = join(dataDir, 'dev-api-key');
  const kept = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  if (kept.trim() !== '') return kept.trim();
  const key = `dev_${randomBytes(24).toString('base64url')}`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
