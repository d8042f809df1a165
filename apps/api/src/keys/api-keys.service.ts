import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../db/database.js';
import { type ApiKeyRecord, type Sql, statement } from '../db/sql.js';
import { sha256 } from './api-key-digest.js';

/** Every issued key starts with this; a presented key without it is not looked up in the database at all. */
export const ISSUED_KEY_PREFIX = 'psk_';
const SHOWN_PREFIX_LENGTH = ISSUED_KEY_PREFIX.length + 8;

/**
 * What a key's name may be: `pnpm keys list` prints it on one tab-separated line, so no control (tab, newline) and
 * no line or paragraph separator (U+2028, U+2029: a line break to a terminal or an editor).
 */
const KEY_NAME_MAX_LENGTH = 100;
const KEY_NAME = /^(?=.*[^\p{White_Space}\p{Default_Ignorable_Code_Point}])[^\p{Cc}\p{Zl}\p{Zp}]+$/u;

/** The key name's problem, or undefined when `name` is a good one. */
export function keyNameProblem(name: string): string | undefined {
  if ([...name].length > KEY_NAME_MAX_LENGTH) return `must be at most ${KEY_NAME_MAX_LENGTH} characters long`;
  if (!name.isWellFormed() || !KEY_NAME.test(name)) {
    return 'must have a visible character and no control characters (tab, newline...)';
  }
  return undefined;
}

export interface IssuedKey {
  id: bigint;
  name: string;
  /** The first characters of the key, enough to recognise it. */
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * API keys as credentials: each stored as a SHA-256 digest with a name, creation time and optional
 * revocation. The key itself exists only in the output of `create`.
 */
export function createApiKeysService(prisma: PrismaClient) {
  const select = { id: true, name: true, prefix: true, createdAt: true, revokedAt: true } as const;
  return {
    /** Issues a new key; the returned `key` is shown once and cannot be recovered later. */
    async create(name: string): Promise<IssuedKey & { key: string }> {
      const key = `${ISSUED_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const row = await prisma.apiKey.create({
        select,
        data: { name, keyHash: sha256(key), prefix: key.slice(0, SHOWN_PREFIX_LENGTH) },
      });
      return { ...row, key };
    },

    list(): Promise<IssuedKey[]> {
      return prisma.apiKey.findMany({ select, orderBy: { id: 'asc' } });
    },

    /** Revokes a key: 401 from the next request on every instance (keys are not cached); its open streams end within EVENTS_KEEPALIVE_MS (pet-feed.ts). */
    async revoke(id: bigint): Promise<IssuedKey | undefined> {
      const row = await prisma.apiKey.findUnique({ select, where: { id } });
      if (row === null) return undefined;
      if (row.revokedAt !== null) return row;
      return prisma.apiKey.update({ select, where: { id }, data: { revokedAt: new Date() } });
    },
  };
}

const FIND_ACTIVE = statement<ApiKeyRecord>(
  'SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
);

/** The lookup of every request with an issued key, a hot statement (db/sql.ts); revoked keys are not found. */
export function createIssuedKeyLookup(sql: Sql) {
  return async (keyHash: Buffer): Promise<{ id: bigint } | undefined> => {
    const [row] = await sql.rows(FIND_ACTIVE, [{ value: keyHash, type: 'bytes' }]);
    return row === undefined ? undefined : { id: row.id };
  };
}
