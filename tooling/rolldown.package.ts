// The build of every published package: ES modules and CommonJS from the TypeScript source, and the declarations
// tsc wrote to build/types bundled once per format (index.d.ts for `import`, index.d.cts for `require`), so that
// TypeScript resolves the package under node10, node16 (CommonJS and ESM) and bundler alike
// (`attw --pack`, run by `pnpm test:pack`). Dependencies are never bundled: a consumer gets one copy of zod.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { RolldownOptions, RolldownPluginOption } from 'rolldown';
import { dts } from 'rolldown-plugin-dts';

export interface PackageBuild {
  /** Entries built as both ES module and CommonJS, with declarations (`index` -> `src/index.ts`). */
  entries: string[];
  /** Entries built as ES modules only, without declarations (a bin using top-level await). */
  esmOnlyEntries?: string[];
  /** Runs once the declarations are written (the client checks that no server type leaked into them). */
  checkDeclarations?: (file: string) => void;
}

// Anything not relative is a dependency or a Node built-in: left as an import.
const isBare = (id: string) => !id.startsWith('.') && !path.isAbsolute(id);
const source = (names: string[]) => Object.fromEntries(names.map((name) => [name, `src/${name}.ts`]));

export function packageBuild({
  entries,
  esmOnlyEntries = [],
  checkDeclarations,
}: PackageBuild): RolldownOptions[] {
  const code = (format: 'es' | 'cjs', names: string[]): RolldownOptions => {
    const extension = format === 'es' ? 'js' : 'cjs';
    return {
      input: source(names),
      external: isBare,
      platform: 'neutral',
      output: {
        dir: 'dist',
        format,
        sourcemap: true,
        // One file per module, as written: a bundler drops the modules a page does not use (with
        // `sideEffects: false`), and with them their imports (the tRPC client, superjson, the OpenAPI generator).
        preserveModules: true,
        preserveModulesRoot: 'src',
        entryFileNames: `[name].${extension}`,
        chunkFileNames: `[name]-[hash].${extension}`,
      },
    };
  };
  const declarations = (
    extension: 'd.ts' | 'd.cts',
    plugins: RolldownPluginOption[] = [],
  ): RolldownOptions => ({
    input: Object.fromEntries(entries.map((name) => [name, `build/types/${name}.d.ts`])),
    external: isBare,
    plugins: [dts({ dtsInput: true, emitDtsOnly: true, tsconfig: false }), ...plugins],
    output: { dir: 'dist', format: 'es', entryFileNames: `[name].${extension}` },
  });
  const afterLastBuild = {
    name: 'check-declarations',
    closeBundle() {
      rmSync('build', { recursive: true, force: true });
      for (const name of entries) {
        for (const extension of ['d.ts', 'd.cts']) checkDeclarations?.(`dist/${name}.${extension}`);
      }
    },
  };
  const cleanFirst = {
    name: 'clean-dist',
    buildStart() {
      rmSync('dist', { recursive: true, force: true });
    },
  };
  return [
    { ...code('es', [...entries, ...esmOnlyEntries]), plugins: [cleanFirst] },
    code('cjs', entries),
    declarations('d.ts'),
    declarations('d.cts', [afterLastBuild]),
  ];
}
