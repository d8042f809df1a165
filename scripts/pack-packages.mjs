#!/usr/bin/env node
// `pnpm pack:packages`: the published packages as installable tarballs, for using them from a clone before (or
// without) a release. Builds them (turbo), then `pnpm pack`s each: pnpm rewrites the `workspace:` ranges to the
// versions they stand for, which `npm pack` does not (its tarballs do not install). The one place packages are
// packed: scripts/pack-test.mjs packs through it too.
//
//   node scripts/pack-packages.mjs [--out <dir>] [@petstore/schema @petstore/client ...]
//
// Default: every published package, into ./dist-packages (emptied first). Prints the npm install line.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');

/** The packages other teams install, in dependency order. */
export const PUBLISHED = ['@petstore/schema', '@petstore/client', '@petstore/conformance'];

function workspacePackage(name) {
  for (const dir of readdirSync(path.join(root, 'packages'))) {
    const file = path.join(root, 'packages', dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (manifest.name === name && !manifest.private) return { dir: path.dirname(file), manifest };
  }
  throw new Error(`${name} is not a published workspace package`);
}

const run = (args, options = {}) => {
  console.error(`$ npx -y pnpm@12 ${args.join(' ')}`);
  return execFileSync('npx', ['-y', 'pnpm@12', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    ...options,
  });
};

/**
 * Builds `names` and packs each into `destination` (created if missing); returns, per package, its directory,
 * manifest and tarball path.
 */
export function packPackages(names = PUBLISHED, destination = path.join(root, 'dist-packages')) {
  const packages = names.map(workspacePackage);
  mkdirSync(destination, { recursive: true });
  run(['turbo', 'run', 'build', '--output-logs=errors-only', ...names.map((name) => `--filter=${name}`)]);
  return packages.map(({ dir, manifest }) => {
    const before = new Set(readdirSync(destination));
    run(['--dir', dir, 'pack', '--pack-destination', destination]);
    const tarball = readdirSync(destination).find((file) => !before.has(file) && file.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball for ${manifest.name}`);
    const packed = path.join(destination, tarball);
    // What makes npm-packed tarballs uninstallable: a range only a workspace understands (pnpm pack replaces both).
    const inside = execFileSync('tar', ['-xOzf', packed, 'package/package.json'], { encoding: 'utf8' });
    for (const protocol of ['workspace:', 'catalog:']) {
      if (inside.includes(protocol)) throw new Error(`${tarball} still has a ${protocol} range`);
    }
    return { dir, manifest, tarball: packed };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const out = args[0] === '--out' ? path.resolve(args[1] ?? '') : path.join(root, 'dist-packages');
  const names = args[0] === '--out' ? args.slice(2) : args;
  rmSync(out, { recursive: true, force: true });
  const packed = packPackages(names.length > 0 ? names : PUBLISHED, out);
  console.log(`Packed into ${out}:`);
  for (const { tarball } of packed) console.log(`  ${path.basename(tarball)}`);
  const files = packed.map(({ tarball }) => tarball).join(' ');
  console.log(`Install them in your project (zod is a peer dependency):\n  npm install ${files} zod@^4`);
}
