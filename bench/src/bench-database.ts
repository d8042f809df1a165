// A fresh PostgreSQL database per run, seeded after the api has migrated it, dropped at the end.
import { hostname } from 'node:os';
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

/**
 * This machine in a database name (letters and digits, at most 16): a run's pid means something only on the machine
 * (the pid namespace) that started it, and another machine's runs may share the server.
 */
const HOST =
  hostname()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 16) || 'host';
/** A run's database: `petstore_bench_<host>_<pid of the run>_<ms>`. */
const BENCH_DATABASE = new RegExp(`^petstore_bench_${HOST}_(\\d+)_\\d+$`);

/** Whether a process with this pid is alive on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops the databases of earlier runs on this machine whose process is gone. A run drops its own in `finally`, but a run killed
 * outright (SIGKILL, or a signal that ends it before the drop's round trip) cannot; the next run does.
 */
/** The database name of the run with this pid on this machine, started at `ms`. */
export const benchDatabaseName = (pid: number, ms: number) => `petstore_bench_${HOST}_${pid}_${ms}`;

export async function dropAbandonedBenchDatabases(admin: pg.Client): Promise<string[]> {
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'petstore\\_bench\\_%'",
  );
  const abandoned = rows
    .map((row) => row.datname)
    .filter((name) => {
      const pid = Number(BENCH_DATABASE.exec(name)?.[1] ?? Number.NaN);
      return Number.isInteger(pid) && pid !== process.pid && !alive(pid);
    });
  for (const name of abandoned) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  return abandoned;
}

export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  assertLoopback(adminUrl);
  const name = benchDatabaseName(process.pid, Date.now());
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await dropAbandonedBenchDatabases(admin);
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
