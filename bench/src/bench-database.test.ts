// A run killed outright leaves its database behind; the next run drops it, and never one whose run is alive.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { timeouts } from '../../tooling/vitest.shared.js';
import { benchDatabaseName, dropAbandonedBenchDatabases } from './bench-database.js';

const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const admin = new pg.Client({ connectionString: adminUrl });
let running: ChildProcess | undefined;
const names: string[] = [];

/** A process that has exited: its pid names no live run. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

beforeAll(async () => {
  await admin.connect();
}, timeouts.hook);

afterAll(async () => {
  running?.kill();
  for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}, timeouts.hook);

it(
  'drops the database of a run whose process is gone, and keeps one whose run is alive',
  async () => {
    running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000)']);
    const stamp = Date.now();
    const abandoned = benchDatabaseName(await deadPid(), stamp);
    const live = benchDatabaseName(running.pid as number, stamp);
    const mine = benchDatabaseName(process.pid, stamp);
    // Another machine's run: its pid means nothing here, so it is never taken for abandoned.
    const elsewhere = `petstore_bench_otherhost_${await deadPid()}_${stamp}`;
    for (const name of [abandoned, live, mine, elsewhere]) {
      names.push(name);
      await admin.query(`CREATE DATABASE ${name}`);
    }
    const dropped = await dropAbandonedBenchDatabases(admin);
    expect(dropped).toContain(abandoned);
    expect(dropped).not.toContain(live);
    expect(dropped).not.toContain(mine);
    expect(dropped).not.toContain(elsewhere);
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = ANY($1)',
      [[abandoned, live, mine, elsewhere]],
    );
    expect(rows.map((row) => row.datname).sort()).toEqual([live, mine, elsewhere].sort());
  },
  timeouts.server,
);
