// The contract guard's description and wire diff, read from its TypeScript source, for the extra-operation test.
//
// Not imported as `@petstore/contract-guard`: the guard depends on the client, which depends on this app
// (type-only, for `AppRouter`), so a dependency back from here would be a cycle, which Turborepo refuses to
// schedule (test/clients/client.ts says the same). apps/api/turbo.json lists the guard's sources as inputs.
export {
  describeContract,
  type SchemaModule,
} from '../../../../tooling/contract-guard/src/describe-contract.js';
export { diffWire } from '../../../../tooling/contract-guard/src/wire-diff.js';
