// ESM + CommonJS for the programmatic API, declarations bundled per format (tooling/rolldown.package.ts); the
// `petstore-conformance` bin (dist/cli.js) is an ES module only: it awaits at top level.
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

export default defineConfig(packageBuild({ entries: ['index'], esmOnlyEntries: ['cli'] }));
