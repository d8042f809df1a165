/**
 * What every reliability scenario shares: its result row, the environment it runs in, and small HTTP
 * helpers. No vitest import: the scenarios run under vitest (bounded) and from the report script (--full).
 */
import { type Pet, PetSchema, parseJson, stringifyJson } from '@petstore/schema';
import { withTempDir } from '../support/run-registry.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { RELIABILITY_API_KEY } from './api-process.js';

export type ScenarioDatabase = 'postgresql' | 'pglite';

/** One row of the reliability report. */
export interface ScenarioResult {
  scenario: string;
  database: ScenarioDatabase;
  requestsSent: number;
  faultsInjected: number;
  /** 5xx answers that were not expected: any at all, except 503 while the database is down. */
  serverErrors: number;
  /** Writes the client saw acknowledged (201) that were missing or different afterwards; undefined: n/a. */
  acknowledgedWritesLost: number | undefined;
  /** From the end of the fault to the first good answer, in ms; undefined: n/a. */
  recoveryMs: number | undefined;
  /** Peak resident memory of the API under the scenario's hostile load and under a normal load (bytes). */
  memory?: { peakBytes: number; normalPeakBytes: number };
  /** Scenario-specific figures, printed under the table. */
  details: Record<string, unknown>;
  /** Everything that broke the contract, human-readable. Empty means the scenario passed. */
  violations: string[];
}

/** Where scenarios get a PostgreSQL database: the test run's server (vitest) or the report's. */
export interface ScenarioEnvironment {
  postgresAdminUrl: string;
  /** Logs progress (the report prints it; tests keep it quiet). */
  log?: (line: string) => void;
}

export async function withPostgresDatabase<T>(
  env: ScenarioEnvironment,
  label: string,
  use: (database: TestDatabase) => Promise<T>,
): Promise<T> {
  const database = await createTestDatabase(label, { adminUrl: env.postgresAdminUrl });
  try {
    return await use(database);
  } finally {
    await database.drop();
  }
}

/** A temp dir of this run, removed afterwards on every path (../support/run-registry.ts). */
export { withTempDir };

/** The API on PostgreSQL (a fresh database) or on PGlite in a fresh data directory. */
export async function withDatabase<T>(
  env: ScenarioEnvironment,
  database: ScenarioDatabase,
  label: string,
  use: (target: { databaseUrl?: string; dataDir: string }) => Promise<T>,
): Promise<T> {
  return withTempDir(`petstore-${label}-`, (dataDir) =>
    database === 'postgresql'
      ? withPostgresDatabase(env, label, (db) => use({ databaseUrl: db.url, dataDir }))
      : use({ dataDir }),
  );
}

export const authHeaders = {
  authorization: `Bearer ${RELIABILITY_API_KEY}`,
  'content-type': 'application/json',
};

export interface JsonReply {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function requestJson(
  url: string,
  init: { method?: string; body?: string; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<JsonReply> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...authHeaders, ...init.headers },
    body: init.body,
    signal: init.signal,
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : parseJson(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** POST /v1/pets; the Pet when the server answered 201, else the reply. */
export async function createPet(
  baseUrl: string,
  newPet: { name: string; categoryId: bigint; status?: Pet['status'] },
  signal?: AbortSignal,
): Promise<{ pet?: Pet; reply: JsonReply }> {
  const body = stringifyJson(newPet);
  const reply = await requestJson(`${baseUrl}/pets`, { method: 'POST', body, ...(signal ? { signal } : {}) });
  return reply.status === 201 ? { pet: PetSchema.parse(reply.body), reply } : { reply };
}

/** Deterministic pseudo-random numbers (mulberry32), so a scenario run is repeatable from its seed. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['available', 'pending', 'sold', undefined] as const;

/** A NewPet with awkward but valid content: int64 past 2^53, unicode names, absent status. */
export function samplePet(random: () => number, label: string) {
  const categoryId =
    BigInt(Math.floor(random() * 2 ** 31)) * 2n ** 32n + BigInt(Math.floor(random() * 2 ** 32));
  const status = STATUSES[Math.floor(random() * STATUSES.length)];
  return {
    name: `${label} 🐾 ${Math.floor(random() * 1e9)}`,
    categoryId,
    ...(status === undefined ? {} : { status }),
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Checks an acknowledged pet against what the API returns for it now; a message if it differs. */
export async function verifyPet(baseUrl: string, expected: Pet): Promise<string | undefined> {
  const reply = await requestJson(`${baseUrl}/pets/${expected.id}`);
  if (reply.status !== 200) return `pet ${expected.id}: GET answered ${reply.status}`;
  const actual = PetSchema.safeParse(reply.body);
  if (!actual.success) return `pet ${expected.id}: not a Pet: ${reply.text.slice(0, 200)}`;
  const { id, name, categoryId, status } = actual.data;
  if (
    id !== expected.id ||
    name !== expected.name ||
    categoryId !== expected.categoryId ||
    status !== expected.status
  ) {
    return `pet ${expected.id}: stored ${reply.text.slice(0, 200)}, acknowledged ${JSON.stringify({ ...expected, id: String(expected.id), categoryId: String(expected.categoryId) })}`;
  }
  return undefined;
}

/** Runs `task` for each item with at most `concurrency` at once. */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
