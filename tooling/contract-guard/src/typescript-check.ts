// The TypeScript part of the check, done by the type checker itself (tsc): the released declarations of
// @petstore/schema and @petstore/client are compiled next to the current sources, and
//  1. every exported name of the release must still be exported;
//  2. each exported type must still accept what it accepted (values a consumer builds: old -> new assignable)
//     and may not hand out what the old one could not hold (values a consumer reads: new -> old assignable);
//     each function or class must still take the old arguments and give back what the old one gave (new -> old);
//     each zod schema must still accept its old input and produce its old output;
//  3. the consumer code kept with the release (consumer/*.ts) must still compile.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Finding } from './finding.js';

export const TS_PACKAGES = ['@petstore/schema', '@petstore/client'] as const;
export type TsPackage = (typeof TS_PACKAGES)[number];

/** How a value export is checked: by its signature, as a zod schema (input and output), or only that it exists. */
export type ValueKind = 'function' | 'class' | 'schema' | 'constant';

/** The exported names of one package at a release. */
export interface PackageExports {
  values: Record<string, ValueKind>;
  /** Type-only exports with their number of type parameters. */
  types: Record<string, number>;
}
export type ReleaseExports = Record<TsPackage, PackageExports>;

/**
 * Which way a consumer uses each exported type. `input`: consumers build values of it and pass them in (it must
 * keep accepting what it accepted: adding a member is fine, removing one breaks). `output`: consumers receive and
 * read values of it (it may not start holding what the old type could not: a new optional field is fine, a new
 * union member breaks an exhaustive `switch`). `both`: either change breaks. A type not listed here is `both`.
 * `exists`: only that it is still exported. `ErrorCode` is `input`: new codes may come in a minor version (the
 * Error schema says so).
 */
const TYPE_DIRECTIONS: Record<string, 'input' | 'output' | 'both' | 'exists'> = {
  NewPetInput: 'input',
  PetInput: 'input',
  ListPetsQueryInput: 'input',
  Int64Input: 'input',
  OpenApiOptions: 'input',
  OpenApiServer: 'input',
  OperationId: 'input',
  RestOperationId: 'input',
  ErrorCode: 'input',
  RestClientOptions: 'input',
  TrpcClientOptions: 'input',
  PetStoreTarget: 'input',
  PetStoreEnvironment: 'input',
  Pet: 'output',
  NewPet: 'output',
  Pets: 'output',
  PetsPage: 'output',
  ApiError: 'output',
  ListPetsQuery: 'output',
  Int64: 'output',
  OpenApiDocument: 'output',
  // `typeof contract`: every summary and description is a literal type in it, so only its existence is checked;
  // what consumers take from it (OperationInput, OperationOutput) is checked by the consumer code.
  Contract: 'exists',
  OperationContract: 'output',
  RestOperationContract: 'output',
  BodyContract: 'output',
  DeprecationContract: 'output',
  ErrorResponseContract: 'output',
  HeaderContract: 'output',
  PetsPageResult: 'output',
  RestClient: 'output',
  AppRouter: 'output',
  PetStoreTrpcClient: 'output',
  PetStatus: 'both',
  HttpMethod: 'both',
  PetStoreErrorKind: 'both',
};

/** The names a declaration entry file exports (`export { a, type B }`, `export type { C } from`). */
export function exportedNames(declarations: string): string[] {
  const names: string[] = [];
  for (const match of declarations.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of (match[1] ?? '').split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1)
        ?.trim();
      if (name) names.push(name);
    }
  }
  return [...new Set(names)].sort();
}

/** Type parameters of a declared type, read from declaration text (`type OperationInput<Id extends ...> =`). */
export function typeArity(declarations: string, name: string): number {
  const start = new RegExp(`(?:type|interface|class)\\s+${name}\\s*<`).exec(declarations);
  if (start === null) return 0;
  let depth = 0;
  let count = 1;
  for (let i = start.index + start[0].length - 1; i < declarations.length; i++) {
    const char = declarations[i];
    if (char === '<' || char === '(' || char === '{' || char === '[') depth++;
    else if (char === '>' || char === ')' || char === '}' || char === ']') {
      depth--;
      if (depth === 0) return count;
    } else if (char === ',' && depth === 1) count++;
  }
  return count;
}

export interface TypeScriptCheckOptions {
  /** The release's baseline directory (types/, exports.json, consumer/). */
  baseline: string;
  /** Entry files of the current packages (default: their sources in the workspace). */
  current: Record<TsPackage, string>;
  /** Where to write the throwaway project (inside this package, so that zod and tRPC resolve). */
  workDir: string;
}

interface Check {
  pkg: TsPackage;
  name: string;
  /** What a failure of this line means. */
  meaning: string;
}

const NAMESPACE: Record<TsPackage, { old: string; current: string }> = {
  '@petstore/schema': { old: 'OldSchema', current: 'NewSchema' },
  '@petstore/client': { old: 'OldClient', current: 'NewClient' },
};

/** The compat file: one check per line, so that tsc's line numbers name the export that failed. */
function compatSource(exports: ReleaseExports): { source: string; checks: Map<number, Check> } {
  const lines = [
    '// Generated by the contract guard: each line fails to compile when a released export broke.',
    "import type { z } from 'zod';",
    "import type * as OldClient from './old/client/index.js';",
    "import type * as OldSchema from './old/schema/index.js';",
    "import type * as NewClient from '@petstore/client';",
    "import type * as NewSchema from '@petstore/schema';",
    'declare function accepts<T>(value: T): void;',
  ];
  const checks = new Map<number, Check>();
  const add = (check: Check, line: string) => {
    lines.push(line);
    checks.set(lines.length, check);
  };
  for (const pkg of TS_PACKAGES) {
    const { old, current } = NAMESPACE[pkg];
    const { values, types } = exports[pkg];
    for (const [name, kind] of Object.entries(values)) {
      const was = `typeof ${old}.${name}`;
      const is = `typeof ${current}.${name}`;
      if (kind === 'schema') {
        add(
          { pkg, name, meaning: 'no longer accepts every input it accepted (z.input narrowed)' },
          `accepts<z.input<${is}>>(null as unknown as z.input<${was}>);`,
        );
        add(
          { pkg, name, meaning: 'produces values the released one could not (z.output widened)' },
          `accepts<z.output<${was}>>(null as unknown as z.output<${is}>);`,
        );
      } else if (kind === 'function' || kind === 'class') {
        add(
          {
            pkg,
            name,
            meaning: `no longer takes the released arguments or returns something else (${kind})`,
          },
          `accepts<${was}>(null as unknown as ${is});`,
        );
      } else {
        add({ pkg, name, meaning: 'is no longer exported' }, `accepts<${is}>(null as unknown as ${is});`);
      }
    }
    for (const [name, arity] of Object.entries(types)) {
      const was = `${old}.${name}`;
      const is = `${current}.${name}`;
      if (arity > 0) {
        // Generic: only that it still exists with as many parameters; consumer/*.ts uses it for real.
        const args = `<${Array.from({ length: arity }, () => 'any').join(', ')}>`;
        add(
          { pkg, name, meaning: 'is no longer exported (generic type)' },
          `accepts<${is}${args}>(null as never);`,
        );
        continue;
      }
      const direction = TYPE_DIRECTIONS[name] ?? 'both';
      if (direction === 'exists') {
        add({ pkg, name, meaning: 'is no longer exported' }, `accepts<${is}>(null as unknown as ${is});`);
        continue;
      }
      if (direction !== 'output') {
        add(
          { pkg, name, meaning: 'no longer accepts every value it accepted (consumers build these)' },
          `accepts<${is}>(null as unknown as ${was});`,
        );
      }
      if (direction !== 'input') {
        add(
          { pkg, name, meaning: 'can now hold values the released type could not (consumers read these)' },
          `accepts<${was}>(null as unknown as ${is});`,
        );
      }
    }
  }
  return { source: `${lines.join('\n')}\n`, checks };
}

interface Diagnostic {
  file: string;
  line: number;
  code: string;
  message: string;
  detail?: string;
}

/** A diagnostic in one line of reasonable length: its headline and, when there is one, its innermost reason. */
function explain({ message, detail }: Diagnostic): string {
  const clip = (text: string) => {
    const short = text.replaceAll(/import\("[^"]*"\)\./g, '');
    return short.length > 300 ? `${short.slice(0, 297)}...` : short;
  };
  return clip(detail ?? message);
}

function runTsc(project: string): Diagnostic[] {
  const require = createRequire(import.meta.url);
  const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    if (output.trim() === '') throw error;
  }
  const diagnostics: Diagnostic[] = [];
  for (const line of output.split('\n')) {
    const match = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line);
    if (match) {
      diagnostics.push({
        file: path.resolve(project, match[1] as string),
        line: Number(match[2]),
        code: match[3] as string,
        message: match[4] as string,
      });
    } else if (line.startsWith(' ') && diagnostics.length > 0) {
      // tsc explains an assignability failure from the outside in; the innermost line names the culprit.
      const last = diagnostics.at(-1) as Diagnostic;
      last.detail = line.trim();
    } else if (line.trim() !== '') {
      diagnostics.push({ file: '', line: 0, code: 'tsc', message: line.trim() });
    }
  }
  return diagnostics;
}

/** tsc's words for a name the module no longer exports (as a type, or as a value under `typeof`). */
const MISSING_EXPORT = /has no exported member|does not exist on type 'typeof import/;

/**
 * New `Error.code`s may come in a minor version (the Error schema promises it, clients fall back on `status`): the
 * released `ErrorCode` is read as the released codes or any current one, so a type that only gains codes (an
 * operation's `errors`) is not a break, while a code taken away still is (`ErrorCode` is checked as input).
 */
function widenReleasedErrorCodes(dir: string): void {
  const declaration = /^((?:export )?type ErrorCode = keyof typeof ERROR_CODES);$/m;
  const file = readdirSync(dir)
    .map((name) => path.join(dir, name))
    .find((candidate) => declaration.test(readFileSync(candidate, 'utf8')));
  if (file === undefined)
    throw new Error(`${dir}: no \`type ErrorCode = keyof typeof ERROR_CODES\` to widen`);
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(declaration, "$1 | import('@petstore/schema').ErrorCode;"));
}

/** Compile the release's declarations and consumer code against the current sources; each failure is a break. */
export function checkTypeScript(options: TypeScriptCheckOptions): Finding[] {
  const exports = JSON.parse(
    readFileSync(path.join(options.baseline, 'exports.json'), 'utf8'),
  ) as ReleaseExports;
  mkdirSync(options.workDir, { recursive: true });
  const project = mkdtempSync(path.join(options.workDir, 'ts-'));
  try {
    cpSync(path.join(options.baseline, 'types'), path.join(project, 'old'), { recursive: true });
    cpSync(path.join(options.baseline, 'consumer'), path.join(project, 'consumer'), { recursive: true });
    widenReleasedErrorCodes(path.join(project, 'old/schema'));
    const { source, checks } = compatSource(exports);
    writeFileSync(path.join(project, 'compat.ts'), source);
    const consumerFiles = readdirSync(path.join(project, 'consumer')).map((file) => `consumer/${file}`);
    const base = path.relative(project, path.join(import.meta.dirname, '../../tsconfig.base.json'));
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      `${JSON.stringify(
        {
          extends: base,
          compilerOptions: {
            noEmit: true,
            declaration: false,
            declarationMap: false,
            sourceMap: false,
            // The released declarations are checked by use, not re-linted.
            skipLibCheck: true,
            noUnusedLocals: false,
            paths: {
              ...Object.fromEntries(TS_PACKAGES.map((pkg) => [pkg, [options.current[pkg]]])),
              // The contract's router type, which the client is typed by: next to the schema entry being checked,
              // so that a contract edit (in a copy under test) reaches the client's `AppRouter` too.
              '@petstore/schema/trpc': [
                path.join(path.dirname(options.current['@petstore/schema']), 'trpc.ts'),
              ],
            },
          },
          files: ['compat.ts', ...consumerFiles],
        },
        null,
        2,
      )}\n`,
    );
    const findings: Finding[] = [];
    const compat = path.join(project, 'compat.ts');
    const seen = new Set<string>();
    for (const diagnostic of runTsc(project)) {
      const check = diagnostic.file === compat ? checks.get(diagnostic.line) : undefined;
      if (check !== undefined) {
        const removed = MISSING_EXPORT.test(diagnostic.message);
        const key = `${check.pkg}:${check.name}:${removed ? 'removed' : check.meaning}`;
        if (seen.has(key)) continue;
        seen.add(key);
        findings.push({
          kind: 'break',
          audience: `TypeScript importers of ${check.pkg}`,
          packages: [check.pkg],
          surface: 'typescript',
          where: `${check.pkg} export \`${check.name}\``,
          what: removed ? 'removed or renamed' : `${check.meaning}: ${explain(diagnostic)}`,
          documentation: false,
        });
        continue;
      }
      if (diagnostic.file === '') throw new Error(`tsc could not check the release: ${diagnostic.message}`);
      const file = path.relative(project, diagnostic.file);
      // An error inside the current sources themselves is `pnpm typecheck`'s to report, not a consumer's break.
      if (!file.startsWith('consumer/')) continue;
      const pkg: TsPackage = file.includes('client') ? '@petstore/client' : '@petstore/schema';
      findings.push({
        kind: 'break',
        audience: `TypeScript importers of ${pkg}`,
        packages: [pkg],
        surface: 'typescript',
        where: `released consumer code ${file}:${diagnostic.line}`,
        what: `no longer compiles: ${diagnostic.code} ${explain(diagnostic)}`,
        documentation: false,
      });
    }
    return findings;
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
