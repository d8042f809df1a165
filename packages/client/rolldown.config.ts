// The client's build (tooling/rolldown.package.ts): ESM + CommonJS, declarations bundled per format. The tRPC
// client is typed by `AppRouter` from `@petstore/schema/trpc` (the contract's router type, left as an import), so
// the published types never name the service. The build fails if any server type slipped in anyway.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'rolldown';
import { packageBuild } from '../../tooling/rolldown.package.js';

const SERVER_CODE = /@petstore\/api|prisma|express|['"]pg['"]/i;

export default defineConfig(
  packageBuild({
    entries: ['index'],
    checkDeclarations(file) {
      const found = SERVER_CODE.exec(readFileSync(file, 'utf8'));
      if (found) throw new Error(`${file} mentions server code (${found[0]}): see rolldown.config.ts`);
    },
  }),
);
