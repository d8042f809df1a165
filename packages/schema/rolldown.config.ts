// ESM + CommonJS, declarations bundled per format: see tooling/rolldown.package.ts. Three entries: the public one,
// `@petstore/schema/trpc` (the tRPC router's type; types only, its code files are empty modules) and
// `@petstore/schema/internal` (src/internal.ts).
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

export default defineConfig(packageBuild({ entries: ['index', 'trpc', 'internal'] }));
