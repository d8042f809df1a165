// Prisma's schema engine (the Rust core behind `prisma migrate`), compiled to WebAssembly, so that
// migrations need no native engine binary (which the Prisma CLI would try to download).
//
// The package's entry file does `import * as wasm from "./schema_engine_bg.wasm"`, which only bundlers
// understand. So we do by hand what that entry file does: load the JS glue (`schema_engine_bg.js`), compile
// the `.wasm` next to it, instantiate it with the glue as its import object, hand the instance back to the
// glue and run the Rust start function. The glue keeps the instance in a module-level variable, so this
// happens once per process: the promise is cached.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type {
  MigrationDirectory,
  MigrationList,
  SchemaEngine,
} from '@prisma/schema-engine-wasm/schema_engine_bg';

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

// TypeScript declares the WebAssembly global only in its DOM library, which this project does not load.
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: Record<string, object>): Promise<{ exports: Record<string, unknown> }>;
};

const GLUE = '@prisma/schema-engine-wasm/schema_engine_bg';

/** No external tables or enums: every table in the schema is Prisma's to migrate. */
export const NO_FILTERS = { externalTables: [], externalEnums: [] };

let glue: Promise<Glue> | undefined;

function loadGlue(): Promise<Glue> {
  glue ??= (async () => {
    const module: Glue = await import(GLUE);
    const wasmPath = join(dirname(createRequire(import.meta.url).resolve(GLUE)), 'schema_engine_bg.wasm');
    const compiled = await WebAssembly.compile(await readFile(wasmPath));
    // The wasm module imports its JS callbacks from "./schema_engine_bg.js", that is from the glue itself.
    const instance = await WebAssembly.instantiate(compiled, { './schema_engine_bg.js': module });
    module.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return module;
  })();
  return glue;
}

/**
 * Runs `fn` with a schema engine that reaches the database through `adapterFactory`, then frees the engine
 * and disposes of every connection it opened. Freeing the engine does not close them, and closing them
 * matters: while applying migrations the engine takes PostgreSQL's session-level advisory lock (as
 * `prisma migrate deploy` does) and never unlocks it, relying on its connection going away.
 *
 * Errors are the engine's own (`Error`s named `SchemaConnectorError`, with Prisma's `code`, e.g. P3009,
 * when there is one), or those the adapter threw.
 */
export async function withSchemaEngine<T>(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadGlue();
  const opened: SqlDriverAdapter[] = [];
  // The engine disposes of its shadow-database connections itself (not of its main one): make disposing
  // idempotent, so that we can dispose of everything afterwards without closing anything twice.
  const track = (adapter: SqlDriverAdapter) => {
    const dispose = adapter.dispose.bind(adapter);
    let disposed: Promise<void> | undefined;
    adapter.dispose = () => {
      disposed ??= dispose();
      return disposed;
    };
    opened.push(adapter);
    return adapter;
  };
  const tracked: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapterFactory.provider,
    adapterName: adapterFactory.adapterName,
    connect: async () => track(await adapterFactory.connect()),
    connectToShadowDb: async () => track(await adapterFactory.connectToShadowDb()),
  };
  const bound = bindMigrationAwareSqlAdapterFactory(tracked);
  let engine: SchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new(
      { datamodels: undefined },
      () => {}, // receives the engine's tracing output, one JSON line per event
      bound,
    );
    return await fn(engine);
  } catch (error) {
    // An error thrown in JS by the adapter (rather than reported by the database) reaches the engine as a
    // number, and comes back as "External error id#<number>": the adapter binding kept the original.
    const id = error instanceof Error ? /^External error id#(\d+)/.exec(error.message)?.[1] : undefined;
    throw (id !== undefined && bound.errorRegistry.consumeError(Number(id))?.error) || error;
  } finally {
    engine?.free();
    await Promise.all(opened.map((adapter) => adapter.dispose()));
  }
}
