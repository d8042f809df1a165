/**
 * vitest globalSetup: finds or starts PostgreSQL once per test run (see
 * ./postgres-server.ts for the order), provides its admin URL to the test files as
 * `inject('postgresAdminUrl')`, and stops an embedded server when the run ends.
 * It never skips: without a server the run fails here, before any test.
 *
 * Its teardown fails the run if a process, a `petstore_test_<run id>_*` database or a temp dir this run
 * started is still there (./run-registry.ts): it kills, drops and removes them, and names them.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { acquirePostgresServer, redactUrl } from './postgres-server.js';
import { onCleanup, RUN_ID } from './run-registry.js';
import { endOfRunCheck, sweepAbandonedTestRuns } from './test-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of an admin-capable database on the test PostgreSQL server. */
    postgresAdminUrl: string;
  }
}

function describeServerUrl(url: string): string {
  const parsed = new URL(redactUrl(url));
  parsed.pathname = '';
  parsed.search = '';
  return parsed.toString().replace(/\/$/, '');
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await acquirePostgresServer();
  const version = server.serverVersion.split(' ')[0];
  console.log(
    `[test] PostgreSQL: ${server.source} ${describeServerUrl(server.adminUrl)} (PostgreSQL ${version}); run ${RUN_ID}`,
  );
  await sweepAbandonedTestRuns(server.adminUrl, (line) => console.log(line));
  project.provide('postgresAdminUrl', server.adminUrl);
  // Ctrl-C: vitest exits at once, without this teardown, and SIGKILLs its workers. Their processes die with
  // them (run-registry.ts); what needs time (dropping databases) is left to a detached reaper started here.
  let tornDown = false;
  const startReaper = () => {
    if (tornDown) return;
    tornDown = true;
    const script = join(import.meta.dirname, 'reap-run.ts');
    spawn(
      process.execPath,
      ['--conditions=@petstore/source', '--import', 'tsx', script, RUN_ID, server.adminUrl],
      {
        cwd: join(import.meta.dirname, '..', '..'),
        detached: true,
        stdio: 'ignore',
      },
    ).unref();
  };
  // Without vitest's own handler, a signal ends this process without an 'exit' event: hence both.
  process.once('exit', startReaper);
  onCleanup(startReaper);
  return async () => {
    tornDown = true;
    try {
      const error = await endOfRunCheck(server.adminUrl);
      if (error) throw error;
    } finally {
      await server.stop();
    }
  };
}
