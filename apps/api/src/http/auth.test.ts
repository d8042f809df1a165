// The caller identity a key verifier gives a key: from the key alone, so instances whose API_KEYS lists are in
// different orders (a rolling deploy, a rotation that removed a key) name every caller the same way.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authenticate, createKeyVerifier } from './auth.js';

const A = 'key-a-0123456789abcdef';
const B = 'key-b-0123456789abcdef';
const C = 'key-c-0123456789abcdef';

const subjectOf = async (verify: ReturnType<typeof createKeyVerifier>, key: string) =>
  (await authenticate(`Bearer ${key}`, verify)).subject;

describe('the caller identity of a key', () => {
  it('is `key:` and the first 32 hex digits of its SHA-256, never the key', async () => {
    const subject = await subjectOf(createKeyVerifier([A, B]), A);
    expect(subject).toBe(`key:${createHash('sha256').update(A).digest('hex').slice(0, 32)}`);
    expect(subject).not.toContain(A);
  });

  it('is the same whatever the position of the key in API_KEYS and whichever instance verified it', async () => {
    const lists = [[A, B, C], [C, B, A], [B, A], [A], [C, A]];
    const verifiers = lists.map((list) => createKeyVerifier(list));
    const ofA = await Promise.all(verifiers.map((verify) => subjectOf(verify, A)));
    expect(new Set(ofA).size).toBe(1);
    // Rotation: B removed from one instance's list; A keeps its identity and B is unknown there.
    expect(await subjectOf(createKeyVerifier([A]), A)).toBe(ofA[0]);
    expect(await createKeyVerifier([A])(B)).toBeUndefined();
  });

  it('differs between keys', async () => {
    const verify = createKeyVerifier([A, B, C]);
    const subjects = await Promise.all([A, B, C].map((key) => subjectOf(verify, key)));
    expect(new Set(subjects).size).toBe(3);
  });

  it('is the same for an issued key as for that key in API_KEYS', async () => {
    const issued = `psk_${'x'.repeat(43)}`;
    const digest = createHash('sha256').update(issued).digest();
    const fromTable = createKeyVerifier([A], {
      prefix: 'psk_',
      find: async (keyHash) => (keyHash.equals(digest) ? { id: 7n } : undefined),
    });
    expect(await subjectOf(fromTable, issued)).toBe(await subjectOf(createKeyVerifier([B, issued]), issued));
  });

  it('holds for any keys and any order (generated)', async () => {
    const key = fc.stringMatching(/^[A-Za-z0-9._~+/-]{16,64}$/);
    // Two instances' lists: the same keys, the second in another order.
    const lists = fc
      .uniqueArray(key, { minLength: 2, maxLength: 6 })
      .chain((keys) =>
        fc.tuple(
          fc.constant(keys),
          fc.shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length }),
        ),
      );
    await fc.assert(
      fc.asyncProperty(lists, async ([keys, shuffled]) => {
        const [one, two] = [createKeyVerifier(keys), createKeyVerifier(shuffled)];
        const subjects = new Set<string>();
        for (const each of keys) {
          const subject = await subjectOf(one, each);
          expect(await subjectOf(two, each)).toBe(subject);
          expect(subject).toMatch(/^key:[0-9a-f]{32}$/);
          expect(subject).not.toContain(each);
          subjects.add(subject);
        }
        expect(subjects.size).toBe(keys.length);
      }),
      { numRuns: 200 },
    );
  });
});
