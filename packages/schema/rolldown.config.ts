// ESM + CommonJS, declarations bundled per format: see tooling/rolldown.package.ts. Two entries: the public one and
// `@petstore/schema/internal` (src/internal.ts).
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

export default defineConfig(packageBuild({ entries: ['index', 'internal'] }));
