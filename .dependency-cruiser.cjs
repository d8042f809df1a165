// The direction of imports inside apps/api (docs/development.md#layers): this file is the rule; `pnpm deps:check`
// runs it in CI (.ci/run).
//
//   composition root (main, start, app, config, shutdown, dev-api-key, the *-cli.ts entry points)
//     -> transports (http/, trpc/, server-limits.ts) -> domain (pets/, keys/, idempotency/, limits/, events/,
//        operations.ts, errors.ts) -> db/ -> generated Prisma client
//   observability/ is handed in by the composition root (metrics, tracer, label objects); transports may use it,
//   the domain and db/ never import it. It may name db/'s types (the Sql port it wraps with spans, the pool
//   figures it reads), never run db/ code.
//   logger.ts and config-error.ts are leaves every layer may use (the logger itself is handed in); config.ts's
//   types (the options a module is handed) may be named anywhere, its code runs only in the composition root.
//
// Unit tests (*.test.ts) are left out: a test may build whatever layers it needs.

const SRC = '^apps/api/src/';
const CLI = `${SRC}(db/migrate-cli|db/with-configured-database|keys/keys-cli)[.]ts$`;
const TRANSPORT = [`${SRC}(http|trpc)/`, `${SRC}server-limits[.]ts$`];
const DOMAIN = [`${SRC}(pets|keys|idempotency|limits|events)/`, `${SRC}(operations|errors)[.]ts$`];
const DB = `${SRC}db/`;
const OBSERVABILITY = `${SRC}observability/`;
const GENERATED = `${SRC}generated/`;
const COMPOSITION = [`${SRC}(main|start|app|shutdown|dev-api-key)[.]ts$`, CLI];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle, type-only ones included: split the shared part into a module both import.',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'not-to-composition-root',
      severity: 'error',
      comment: 'Only the composition root wires the app together; nothing below it imports it.',
      from: { path: SRC, pathNot: COMPOSITION },
      to: { path: COMPOSITION },
    },
    {
      name: 'config-types-only-below-composition-root',
      severity: 'error',
      comment:
        'config.ts parses the environment for the composition root; below it, only its types are named.',
      from: { path: SRC, pathNot: [...COMPOSITION, `${SRC}config[.]ts$`] },
      to: { path: `${SRC}config[.]ts$`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-not-to-transport-or-observability',
      severity: 'error',
      comment:
        'The domain works on plain objects: no HTTP, no tRPC, no metrics or traces (those are handed in).',
      from: { path: DOMAIN, pathNot: CLI },
      to: { path: [...TRANSPORT, OBSERVABILITY] },
    },
    {
      name: 'transport-not-to-db',
      severity: 'error',
      comment:
        'Transports reach the database only through the domain or a function the composition root hands in.',
      from: { path: TRANSPORT },
      to: { path: DB },
    },
    {
      name: 'db-not-upward',
      severity: 'error',
      comment: 'db/ is the bottom layer: it imports no domain, transport or observability module.',
      from: { path: DB, pathNot: CLI },
      to: { path: [...DOMAIN, ...TRANSPORT, OBSERVABILITY] },
    },
    {
      name: 'observability-not-to-layers',
      severity: 'error',
      comment:
        'Observability is handed in from the composition root; it does not reach into the layers it watches.',
      from: { path: OBSERVABILITY },
      to: { path: [...TRANSPORT, ...DOMAIN, GENERATED] },
    },
    {
      name: 'observability-types-only-from-db',
      severity: 'error',
      comment:
        "Observability may name db/'s types (the Sql port it wraps, the pool figures it reads), not run db/ code.",
      from: { path: OBSERVABILITY },
      to: { path: DB, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'raw-sql-only-on-hot-paths',
      severity: 'error',
      comment:
        "SQL text through Sql (db/sql.ts) only for the statements on an API call's path; everything else uses the " +
        'Prisma client (docs/development.md#layers). A new hot path is added here, where a reviewer sees it.',
      from: {
        path: SRC,
        pathNot: [
          DB,
          OBSERVABILITY, // wraps Sql with spans (types only: rule above)
          `${SRC}pets/pets[.]service[.]ts$`,
          `${SRC}keys/api-keys[.]service[.]ts$`,
          `${SRC}limits/rate-limit[.]store[.]ts$`,
          `${SRC}events/pet-(events[.]store|feed)[.]ts$`, // the change feed: its reads and pruning (the store), the Sql it hands them (the feed)
          `${SRC}(app|start|config)[.]ts$`,
        ],
      },
      to: { path: `${DB}sql[.]ts$` },
    },
    {
      name: 'generated-prisma-only-from-db',
      severity: 'error',
      comment:
        'The generated Prisma client stays behind db/: other modules take its type from db/database.ts.',
      from: { path: SRC, pathNot: [DB, GENERATED] },
      to: { path: GENERATED },
    },
  ],
  options: {
    exclude: { path: '[.]test[.]ts$' },
    // The generated client is a target of the rules, not something to check inside.
    doNotFollow: { path: ['node_modules', GENERATED] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'apps/api/tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@petstore/source', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
