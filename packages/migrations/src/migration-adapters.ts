// How the schema engine reaches a PostgreSQL server, and the fix both database kinds need for migration
// scripts (sendScriptsWhole). The PGlite factory is in pglite-migration-adapter.ts, so that a process on
// PostgreSQL never loads PGlite.
import { PrismaPg } from '@prisma/adapter-pg';
import {
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';

/** A migration adapter factory for a PostgreSQL server. */
export function pgMigrationAdapter(connectionString: string): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaPg({ connectionString });
  const sendWhole = (adapter: Awaited<ReturnType<PrismaPg['connect']>>) =>
    sendScriptsWhole(adapter, (script) => adapter.underlyingDriver().query(script));
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => sendWhole(await factory.connect()),
    connectToShadowDb: async () => sendWhole(await factory.connectToShadowDb()),
  };
}

/**
 * Makes `adapter.executeScript`, which the engine uses to apply a migration, send the script to PostgreSQL
 * as one simple-protocol query, as the native engine does: its statements then run in one implicit
 * transaction, and a failing migration leaves nothing behind. The adapters do otherwise:
 * - @prisma/adapter-pg splits the script at every ";" (even inside a string literal or a function body)
 *   and runs the pieces one by one, so a failure leaves the statements before it applied;
 * - pglite-prisma-adapter does not await its `exec`, so a failing migration is recorded as applied and the
 *   error escapes as an unhandled rejection.
 * Errors are reported the way the adapters report query errors, so the engine shows PostgreSQL's message.
 */
export function sendScriptsWhole<A extends SqlDriverAdapter>(
  adapter: A,
  send: (script: string) => Promise<unknown>,
): A {
  adapter.executeScript = async (script) => {
    try {
      await send(script);
    } catch (error) {
      throw asDriverAdapterError(error);
    }
  };
  return adapter;
}

/** pg and PGlite both raise PostgreSQL's ErrorResponse fields as properties of the error. */
function asDriverAdapterError(error: unknown): unknown {
  if (!(error instanceof Error && 'code' in error && 'severity' in error)) return error;
  const field = (name: string) => {
    const value = (error as unknown as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  return new DriverAdapterError({
    kind: 'postgres',
    code: String(error.code),
    severity: String(error.severity),
    message: error.message,
    detail: field('detail'),
    column: field('column'),
    hint: field('hint'),
  });
}
