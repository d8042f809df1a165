// The raw reference server's validation, hand-written: the same rules as @petstore/schema (the api's zod
// models), without zod, so the reference shows what the work itself costs. Pure functions, unit-tested against
// the api's documented decisions (README, "our decisions where it is silent"). The naive server shares the key
// check, the int64 reviver and the content-type rule, and validates the rest with its own zod schemas.
import { createHash, timingSafeEqual } from 'node:crypto';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER_TEXT = /^-?\d+$/;
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** A rule broken by the request: becomes a 4xx Error body. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new RequestError(400, 'validation_failed', message);

export type AuthResult = 'ok' | 'missing' | 'invalid';

const digest = (key: string) => createHash('sha256').update(key).digest();

/** Which configured key a request carries (its index), or why none: `missing` (no bearer token) or `invalid`. */
export type KeyIdentity = number | 'missing' | 'invalid';

/**
 * Same as the api: SHA-256 digests compared in constant time against every key, always; says which key matched
 * (for what is counted per key, the production Fastify reference's rate limit).
 */
export function createKeyIdentifier(keys: readonly string[]) {
  const digests = keys.map(digest);
  return (authorization: string | undefined): KeyIdentity => {
    if (authorization === undefined || authorization === '') return 'missing';
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) return 'missing';
    const candidate = digest(token);
    let found = -1;
    for (let i = 0; i < digests.length; i++) {
      if (timingSafeEqual(candidate, digests[i] as Buffer)) found = i;
    }
    return found === -1 ? 'invalid' : found;
  };
}

/** The key check of every reference: `ok`, or why not. */
export function createKeyChecker(keys: readonly string[]) {
  const identify = createKeyIdentifier(keys);
  return (authorization: string | undefined): AuthResult => {
    const identity = identify(authorization);
    return typeof identity === 'number' ? 'ok' : identity;
  };
}

export interface ListQuery {
  limit: number;
  status: PetStatus | undefined;
}

function parseLimit(value: unknown): number {
  if (value === undefined) return 20;
  const limit =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && INTEGER_TEXT.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw invalid('limit: must be an integer between 1 and 100');
  }
  return limit;
}

function parseStatus(value: unknown, subject: string): PetStatus {
  if (typeof value !== 'string' || !(PET_STATUSES as readonly string[]).includes(value)) {
    throw invalid(`${subject}: must be one of ${PET_STATUSES.join(', ')}`);
  }
  return value as PetStatus;
}

/** `limit=&status=` from a raw query string (no leading `?`): each at most once, nothing else. */
export function parseListSearch(search: string): ListQuery {
  let limit: string | undefined;
  let status: string | undefined;
  if (search !== '') {
    for (const pair of search.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = decode(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
      if (key === 'limit') {
        if (limit !== undefined) throw invalid('limit: must be given at most once');
        limit = value;
      } else if (key === 'status') {
        if (status !== undefined) throw invalid('status: must be given at most once');
        status = value;
      } else {
        throw invalid(`unknown query parameter ${JSON.stringify(key)}`);
      }
    }
  }
  return {
    limit: parseLimit(limit),
    status: status === undefined ? undefined : parseStatus(status, 'status'),
  };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.includes('+') ? text.replaceAll('+', ' ') : text);
  } catch {
    throw invalid('the URL is not valid percent-encoding');
  }
}

/** The typed list input of tRPC `pets.list` (`{ limit?, status? }`, strict). */
export function parseListInput(input: unknown): ListQuery {
  if (input === undefined) return { limit: 20, status: undefined };
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('must be a JSON object');
  const record = input as Record<string, unknown>;
  for (const key in record) {
    if (key !== 'limit' && key !== 'status') throw invalid(`unknown query parameter ${JSON.stringify(key)}`);
  }
  if (record.limit !== undefined && typeof record.limit !== 'number') {
    throw invalid('limit: must be an integer between 1 and 100');
  }
  return {
    limit: parseLimit(record.limit),
    status: record.status === undefined ? undefined : parseStatus(record.status, 'status'),
  };
}

/** `{petId}`: a decimal positive int64. */
export function parsePetId(text: string): bigint {
  if (!INTEGER_TEXT.test(text) || text.length > 20) throw invalid('petId: must be a positive integer');
  const id = BigInt(text);
  if (id < 1n || id > INT64_MAX) throw invalid('petId: must be a positive integer');
  return id;
}

/**
 * A `JSON.parse` reviver: an integer beyond 2^53 keeps every digit, as a bigint read from its source text (the
 * naive server hands it to `express.json`).
 */
export function int64Reviver(_key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    INTEGER_TEXT.test(context.source)
    ? BigInt(context.source)
    : value;
}

/** `JSON.parse`, but an integer beyond 2^53 keeps every digit, as a bigint read from its source text. */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, int64Reviver);
}

export interface NewPet {
  name: string;
  /** Decimal text, exact: sent to PostgreSQL as text. */
  categoryId: string;
  status: PetStatus | null;
}

function int64Text(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value === 'bigint')
    return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
  return undefined;
}

/** NewPet: name 1..255, not blank, well-formed without NUL; categoryId int64; status optional (never null). */
export function parseNewPet(body: unknown): NewPet {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('must be a JSON object');
  const record = body as Record<string, unknown>;
  const problems: string[] = [];
  for (const key in record) {
    if (key !== 'name' && key !== 'categoryId' && key !== 'status') {
      problems.push(`unknown field ${JSON.stringify(key)}`);
    }
  }
  const { name, categoryId, status } = record;
  if (typeof name !== 'string')
    problems.push(name === undefined ? 'name: is required' : 'name: must be a string');
  else if (name.length === 0) problems.push('name: must not be empty');
  else if (name.length > 255) problems.push('name: must be at most 255 characters long');
  else if (name.trim().length === 0) problems.push('name: must contain a character other than whitespace');
  else if (!name.isWellFormed() || name.includes('\u0000')) {
    problems.push('name: must be valid Unicode text without NUL characters');
  }
  const category = int64Text(categoryId);
  if (category === undefined) {
    problems.push(
      categoryId === undefined ? 'categoryId: is required' : 'categoryId: must be an integer (int64)',
    );
  }
  if (status !== undefined) {
    try {
      parseStatus(status, 'status');
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw invalid(problems.join('; '));
  return {
    name: name as string,
    categoryId: category as string,
    status: (status as PetStatus | undefined) ?? null,
  };
}

/** `application/json` or `application/*+json`, charset UTF-8 if any. */
export function isJsonContentType(header: string): boolean {
  const [type = '', ...params] = header
    .toLowerCase()
    .split(';')
    .map((part) => part.trim());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) return false;
  return params.every((param) => !param.startsWith('charset=') || /^charset="?utf-8"?$/.test(param));
}
