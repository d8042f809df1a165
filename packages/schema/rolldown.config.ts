// ESM + CommonJS, declarations bundled per format: see tooling/rolldown.package.ts. `trpc` is the types-only
// `@petstore/schema/trpc` entry (the tRPC router's type); its code files are empty modules.
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

export default defineConfig(packageBuild({ entries: ['index', 'trpc'] }));
