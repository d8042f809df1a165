// The client's build (tooling/rolldown.package.ts): ESM + CommonJS, declarations bundled per format. The tRPC
// client is typed by the service's `AppRouter`, which lives in the private @petstore/api package: its declarations
// are copied in (tree-shaken to what `AppRouter` needs; the workspace link resolves outside node_modules, so the
// plugin inlines it), so the published types name no unpublished package. The build fails if any server type
// slipped through.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

const SERVER_CODE = /@petstore\/api|prisma|express|['"]pg['"]/i;

export default defineConfig(
  packageBuild({
    entries: ['index'],
    inlineTypesOf: /^@petstore\/api\//,
    checkDeclarations(file) {
      const found = SERVER_CODE.exec(readFileSync(file, 'utf8'));
      if (found) throw new Error(`${file} mentions server code (${found[0]}): see rolldown.config.ts`);
    },
  }),
);
