import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { authenticate, createKeyVerifier } from '../http/auth.js';
import { callerIdentity, sha256 } from './api-key-digest.js';
import { API_KEY_TOKEN } from './api-key-format.js';

/** Whether API_KEYS accepts `key` as its only entry. */
function configAccepts(key: string): boolean {
  try {
    parseConfig({ API_KEYS: key });
    return true;
  } catch {
    return false;
  }
}

describe('the API key format', () => {
  it('every key API_KEYS accepts can be presented as a Bearer token and matches', async () => {
    // Printable ASCII without the comma (the list separator), with and without padding in the middle.
    const printable = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
      minLength: 16,
      maxLength: 40,
    });
    const token68 = fc.stringMatching(new RegExp(`^${API_KEY_TOKEN}$`)).filter((key) => key.length >= 16);
    await fc.assert(
      fc.asyncProperty(fc.oneof(printable, token68), async (key) => {
        fc.pre(!key.includes(','));
        if (!configAccepts(key)) return;
        await expect(authenticate(`Bearer ${key}`, createKeyVerifier([key]))).resolves.toEqual({
          subject: callerIdentity(sha256(key)),
        });
      }),
      { numRuns: 500 },
    );
  });

  it.each(['exclamation-mark-0123!', 'mid=string-equals-0123', 'quoted"key-0123456789'])(
    'is refused by the configuration: %s',
    (key) => {
      expect(configAccepts(key)).toBe(false);
    },
  );
});
