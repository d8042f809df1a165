#!/usr/bin/env node
// CI check: the boundaries between workspace packages (docs/development.md, "Package boundaries").
//  1. Nothing under packages/ or tooling/ reaches into apps/: no import of `@petstore/api`, no relative import or
//     path that leads into apps/, no `@petstore/api` in their package.json. The client is typed by the contract
//     (`@petstore/schema/trpc`), which the service implements, never by the service.
//  2. No file of a workspace package imports another package by relative path (`../../packages/client/src/...`):
//     by name (`@petstore/client`), so it gets what consumers get; the "@petstore/source" condition makes tests
//     read the source. What a test needs and a package does not export goes on a deliberate subpath.
// apps/api's own layering (transports -> domain -> db) is dependency-cruiser's (.dependency-cruiser.cjs).
//
//   node scripts/check-boundaries.mjs          (pnpm boundaries:check)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
const SERVICE = /^@petstore\/api(?:\/|$)/;

/** Workspace package directories (relative, '/'-separated), from pnpm-workspace.yaml's `packages:` globs. */
function workspacePackages() {
  const yaml = readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [
    ...(/^packages:\n((?:\s+-.*\n)+)/m.exec(yaml)?.[1] ?? '').matchAll(/-\s*['"]?([^'"\n]+)/g),
  ].map((match) => match[1].trim());
  return globs.flatMap((glob) => {
    const dirs = glob.endsWith('/*')
      ? readdirSync(path.join(root, glob.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
      : [glob];
    return dirs.filter((dir) => existsSync(path.join(root, dir, 'package.json')));
  });
}

const packages = workspacePackages();
/** The workspace package a repository path belongs to, or undefined (scripts/, tooling/'s shared files, ...). */
const packageOf = (file) => packages.find((dir) => file === dir || file.startsWith(`${dir}/`));

/** What a file imports, with line numbers: import/export ... from, import(), require(), new URL(<source file>). */
function specifiers(text) {
  // Comment lines are blanked (line numbers kept): they quote imports as examples.
  const code = text.replace(/^[ \t]*(?:\/\/|\/?\*).*$/gm, '');
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g,
    // A source file by URL (an entry point for a bundler); a directory or a data file is not an import.
    /\bnew URL\(\s*['"]([^'"]+\.(?:[cm]?[jt]s|tsx))['"]\s*,\s*import\.meta\.url/g,
  ];
  const found = [];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      found.push({ spec: match[1], line: code.slice(0, match.index).split('\n').length });
    }
  }
  // Any other string that walks up into apps/ (`path.join(dir, '../../apps/api/src/x.ts')`).
  for (const match of code.matchAll(/['"`]((?:\.\.\/)+apps\/[^'"`]*)['"`]/g)) {
    found.push({ spec: match[1], line: code.slice(0, match.index).split('\n').length, pathOnly: true });
  }
  return found;
}

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && existsSync(path.join(root, file)));

const problems = [];
const guarded = (file) => file.startsWith('packages/') || file.startsWith('tooling/');

for (const file of files) {
  if (guarded(file) && path.basename(file) === 'package.json') {
    const manifest = JSON.parse(readFileSync(path.join(root, file), 'utf8'));
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const name of Object.keys(manifest[field] ?? {})) {
        if (SERVICE.test(name)) problems.push(`${file}: ${field} lists ${name}, the service (apps/api)`);
      }
    }
  }
  if (!CODE.test(file)) continue;
  const own = packageOf(file);
  for (const { spec, line, pathOnly } of specifiers(readFileSync(path.join(root, file), 'utf8'))) {
    const where = `${file}:${line}`;
    if (guarded(file) && SERVICE.test(spec)) {
      problems.push(`${where}: imports ${spec}; type the client from the contract (@petstore/schema/trpc)`);
      continue;
    }
    if (!spec.startsWith('.')) continue;
    const target = path
      .relative(root, path.resolve(root, path.dirname(file), spec))
      .split(path.sep)
      .join('/');
    if (guarded(file) && target.startsWith('apps/')) {
      problems.push(`${where}: ${pathOnly ? 'points' : 'imports'} into apps/ (${spec})`);
      continue;
    }
    if (pathOnly) continue;
    const other = packageOf(target);
    if (own !== undefined && other !== undefined && other !== own) {
      problems.push(`${where}: imports ${other} by relative path (${spec}); import it by its package name`);
    }
  }
}

if (problems.length > 0) {
  console.error(`boundaries:check: ${problems.length} violation(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`boundaries:check: ${files.filter((file) => CODE.test(file)).length} files, no boundary crossed`);
