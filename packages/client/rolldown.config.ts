// Bundles the declarations tsc wrote to build/types into one dist/index.d.ts. The tRPC client is typed by the
// service's `AppRouter`, which lives in the private @petstore/api package: its declarations are copied in
// (tree-shaken to what `AppRouter` needs; the workspace link resolves outside node_modules, so the plugin inlines it), so the published types name no unpublished package. The build
// fails if any server type slipped through.
import { readFileSync, rmSync } from 'node:fs';
import { defineConfig } from 'rolldown';
import { dts } from 'rolldown-plugin-dts';

const SERVER_CODE = /@petstore\/api|prisma|express|['"]pg['"]/i;

export default defineConfig({
  input: { index: 'build/types/index.d.ts' },
  plugins: [
    dts({ dtsInput: true, emitDtsOnly: true, tsconfig: false }),
    {
      name: 'check-no-server-types',
      closeBundle() {
        rmSync('build', { recursive: true, force: true });
        const types = readFileSync('dist/index.d.ts', 'utf8');
        const found = SERVER_CODE.exec(types);
        if (found)
          throw new Error(`dist/index.d.ts mentions server code (${found[0]}): see rolldown.config.ts`);
      },
    },
  ],
  external: [/^@petstore\/schema/, /^@trpc\//, /^zod/, /^superjson/],
  output: { dir: 'dist', format: 'es' },
});
