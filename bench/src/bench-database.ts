// A fresh PostgreSQL database per run, seeded after the api has migrated it, dropped at the end.
import pg from 'pg';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The bench only ever talks to a server on this machine. */
export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!LOOPBACK.has(host))
    throw new Error(`refusing to benchmark against ${host}: only 127.0.0.1 is allowed`);
}

export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  assertLoopback(adminUrl);
  const name = `petstore_bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * `count` pets: a quarter each available / pending / sold / without status, 50 categories, names of varied
 * length. Runs on the migrated schema, then ANALYZE so the planner sees the real table.
 */
export async function seedPets(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO pets (name, category_id, status)
       SELECT 'pet ' || g || repeat('x', g % 17),
              (g % 50) + 1,
              (ARRAY['available', 'pending', 'sold', NULL])[(g % 4) + 1]::pet_status
       FROM generate_series(1, $1::int) AS g`,
      [count],
    );
    await client.query('ANALYZE pets');
  } finally {
    await client.end();
  }
}

export async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}
