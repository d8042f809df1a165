// Loaded only on the embedded-database path (and by migration-diff.ts): it pulls in PGlite.
import { PGlite } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { sendScriptsWhole } from './migration-adapters.js';

/** A migration adapter factory for an embedded PGlite database; its shadow databases are in-memory PGlites. */
export function pgliteMigrationAdapter(pglite: PGlite): SqlMigrationAwareDriverAdapterFactory {
  const factory = new PrismaPGlite(pglite);
  const connect = async (db: PGlite) =>
    sendScriptsWhole(await new PrismaPGlite(db).connect(), (script) => db.exec(script));
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: () => connect(pglite),
    connectToShadowDb: async () => {
      const shadow = new PGlite();
      const adapter = await connect(shadow);
      adapter.dispose = () => shadow.close();
      return adapter;
    },
  };
}
