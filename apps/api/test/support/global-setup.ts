/**
 * vitest globalSetup: finds or starts PostgreSQL once per test run (see
 * ./postgres-server.ts for the order), provides its admin URL to the test files as
 * `inject('postgresAdminUrl')`, and stops an embedded server when the run ends.
 * It never skips: without a server the run fails here, before any test.
 */
import type { TestProject } from 'vitest/node';
import { acquirePostgresServer, redactUrl } from './postgres-server.js';

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
    `[test] PostgreSQL: ${server.source} ${describeServerUrl(server.adminUrl)} (PostgreSQL ${version})`,
  );
  project.provide('postgresAdminUrl', server.adminUrl);
  return async () => {
    await server.stop();
  };
}
