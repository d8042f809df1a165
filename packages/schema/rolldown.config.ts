// ESM + CommonJS, declarations bundled per format: see tooling/rolldown.package.ts.
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

export default defineConfig(packageBuild({ entries: ['index'] }));
