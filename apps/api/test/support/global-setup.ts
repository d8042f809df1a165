/**
 * vitest globalSetup: finds or starts PostgreSQL once per test run (see
 * ./postgres-server.ts for the order), provides its admin URL to the test files as
 * `inject('postgresAdminUrl')`, and stops an embedded server when the run ends.
 * It never skips: without a server the run fails here, before any test.
 *
 * Its teardown fails the run if a process, a `petstore_test_<run id>_*` database or a temp dir this run
 * started is still there (./run-registry.ts): it kills, drops and removes them, and names them.
 */
import type { TestProject } from 'vitest/node';
import { acquirePostgresServer, redactUrl } from './postgres-server.js';
import { leftoverError, RUN_ID, sweepRunLeftovers } from './run-registry.js';
import { dropRunDatabases } from './test-database.js';

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
  project.provide('postgresAdminUrl', server.adminUrl);
  return async () => {
    try {
      const { processes, tempDirs } = await sweepRunLeftovers();
      const databases = await dropRunDatabases(server.adminUrl);
      const error = leftoverError({ processes, tempDirs, databases });
      if (error) throw error;
    } finally {
      await server.stop();
    }
  };
}
