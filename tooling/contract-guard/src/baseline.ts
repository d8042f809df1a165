// The contract as released, kept in the repository (released/<NNNN>-schema-<v>-client-<v>/) rather than read from
// git tags: CI works on a fresh clone that may have no tags, and a reviewer sees a release's contract as files.
// `pnpm version-packages` writes one after `changeset version` (see cli.ts `release`).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ContractDocuments, documentJson, type SchemaModule } from './describe-contract.js';
import {
  exportedNames,
  type PackageExports,
  type ReleaseExports,
  TS_PACKAGES,
  type TsPackage,
  typeArity,
  type ValueKind,
} from './typescript-check.js';

export const GUARD_DIR = path.resolve(import.meta.dirname, '..');
export const ROOT = path.resolve(GUARD_DIR, '../..');
const RELEASED_DIR = path.join(GUARD_DIR, 'released');
/** Consumer code written against the current release; copied into each baseline. */
const CONSUMER_DIR = path.join(GUARD_DIR, 'consumer');

export const PACKAGE_DIRS: Record<TsPackage, string> = {
  '@petstore/schema': path.join(ROOT, 'packages/schema'),
  '@petstore/client': path.join(ROOT, 'packages/client'),
};

export interface ReleaseInfo {
  versions: Record<TsPackage, string>;
  /** When the baseline was written (ISO date). */
  date: string;
  commit: string;
}

export interface Baseline {
  dir: string;
  info: ReleaseInfo;
  documents: ContractDocuments;
}

/** The newest baseline, or undefined when none was ever written. */
export function latestBaselineDir(releasedDir = RELEASED_DIR): string | undefined {
  if (!existsSync(releasedDir)) return undefined;
  const dirs = readdirSync(releasedDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d{4}-/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  const last = dirs.at(-1);
  return last === undefined ? undefined : path.join(releasedDir, last);
}

/** A baseline in words for people: `@petstore/schema 0.1.0 and @petstore/client 0.1.0`. */
export function releaseLabel(dir: string): string {
  const info = JSON.parse(readFileSync(path.join(dir, 'release.json'), 'utf8')) as ReleaseInfo;
  return TS_PACKAGES.map((pkg) => `${pkg} ${info.versions[pkg]}`).join(' and ');
}

export function readBaseline(dir: string, schema: SchemaModule): Baseline {
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  return {
    dir,
    info: JSON.parse(read('release.json')) as ReleaseInfo,
    documents: {
      openapi: schema.parseJson(read('openapi.json')) as Record<string, unknown>,
      trpc: schema.parseJson(read('trpc.json')) as Record<string, unknown>,
    },
  };
}

function valueKind(value: unknown): ValueKind {
  // Any zod 4 schema, classic or zod/mini, carries its internals under `_zod`.
  if (typeof value === 'object' && value !== null && '_zod' in value) return 'schema';
  if (typeof value === 'function') {
    return /^class[\s{]/.test(Function.prototype.toString.call(value)) ? 'class' : 'function';
  }
  return 'constant';
}

/** The exports of a package: its values from the module itself, its types from its declaration entry. */
function packageExports(module: Record<string, unknown>, declarations: string): PackageExports {
  const values = Object.fromEntries(
    Object.keys(module)
      .sort()
      .map((name) => [name, valueKind(module[name])]),
  );
  const types = Object.fromEntries(
    exportedNames(declarations)
      .filter((name) => !(name in values))
      .map((name) => [name, typeArity(declarations, name)]),
  );
  return { values, types };
}

const packageVersion = (pkg: TsPackage) =>
  (JSON.parse(readFileSync(path.join(PACKAGE_DIRS[pkg], 'package.json'), 'utf8')) as { version: string })
    .version;

/**
 * Write the baseline of the current release: the documents, the built declarations of both packages (the client's
 * pointing at the schema's copy), the exported names, and the consumer code. Needs both packages built.
 */
export async function writeBaseline(
  documents: ContractDocuments,
  releasedDir = RELEASED_DIR,
): Promise<string> {
  const versions = Object.fromEntries(TS_PACKAGES.map((pkg) => [pkg, packageVersion(pkg)])) as Record<
    TsPackage,
    string
  >;
  const previous = latestBaselineDir(releasedDir);
  const next = previous === undefined ? 1 : Number(path.basename(previous).slice(0, 4)) + 1;
  const name = `${String(next).padStart(4, '0')}-schema-${versions['@petstore/schema']}-client-${versions['@petstore/client']}`;
  const dir = path.join(releasedDir, name);
  mkdirSync(path.join(dir, 'types/schema'), { recursive: true });
  mkdirSync(path.join(dir, 'types/client'), { recursive: true });

  const schemaDist = path.join(PACKAGE_DIRS['@petstore/schema'], 'dist');
  for (const file of readdirSync(schemaDist).filter((file) => file.endsWith('.d.ts'))) {
    // Without the `//# sourceMappingURL` line: the maps are not kept.
    const text = readFileSync(path.join(schemaDist, file), 'utf8').replace(
      /\n\/\/# sourceMappingURL=.*$/m,
      '',
    );
    writeFileSync(path.join(dir, 'types/schema', file), text);
  }
  const clientDeclarations = readFileSync(
    path.join(PACKAGE_DIRS['@petstore/client'], 'dist/index.d.ts'),
    'utf8',
  );
  writeFileSync(
    path.join(dir, 'types/client/index.d.ts'),
    clientDeclarations.replaceAll(/from ["']@petstore\/schema["']/g, "from '../schema/index.js'"),
  );

  const exports: ReleaseExports = {
    '@petstore/schema': packageExports(
      await import('@petstore/schema'),
      readFileSync(path.join(dir, 'types/schema/index.d.ts'), 'utf8'),
    ),
    '@petstore/client': packageExports(await import('@petstore/client'), clientDeclarations),
  };
  // Arity is read where a type is declared, which for re-exports is the schema's files.
  const allSchemaDeclarations = readdirSync(path.join(dir, 'types/schema'))
    .map((file) => readFileSync(path.join(dir, 'types/schema', file), 'utf8'))
    .join('\n');
  for (const pkg of TS_PACKAGES) {
    for (const name of Object.keys(exports[pkg].types)) {
      exports[pkg].types[name] = Math.max(
        exports[pkg].types[name] ?? 0,
        typeArity(allSchemaDeclarations, name),
        typeArity(clientDeclarations, name),
      );
    }
  }
  writeFileSync(path.join(dir, 'exports.json'), `${JSON.stringify(exports, null, 2)}\n`);
  writeFileSync(path.join(dir, 'openapi.json'), documentJson(documents.openapi));
  writeFileSync(path.join(dir, 'trpc.json'), documentJson(documents.trpc));
  cpSync(CONSUMER_DIR, path.join(dir, 'consumer'), { recursive: true });
  const info: ReleaseInfo = {
    versions,
    date: new Date().toISOString().slice(0, 10),
    commit: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
  };
  writeFileSync(path.join(dir, 'release.json'), `${JSON.stringify(info, null, 2)}\n`);
  return dir;
}
