// The published clients, read from their TypeScript source, for the end-to-end tests in this folder.
//
// Not imported as `@petstore/client`: the client already depends on this app (type-only, for `AppRouter`), and a
// dependency back from here would be a cycle, which Turborepo refuses to schedule. apps/api/turbo.json lists the
// client's sources as inputs of this app's test and typecheck tasks, so a change there is never served from cache.
export * from '../../../../packages/client/src/index.js';
