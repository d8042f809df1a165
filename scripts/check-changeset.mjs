#!/usr/bin/env node
// CI check: every workspace package changed since the base ref is named in a changeset added since then.
// `changeset status --since` only fails when there is no changeset at all; this names each package missing one.
//
//   node scripts/check-changeset.mjs [base-ref]      (default: origin/main, else main)
//
// Follows .changeset/config.json: `ignore`d packages, private packages only with `privatePackages.version`,
// and `changedFilePatterns` (tests alone need no release). An empty changeset (`pnpm changeset --empty`)
// declares that the change needs no release.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const refExists = (ref) => {
  try {
    git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
    return true;
  } catch {
    return false;
  }
};

const base = process.argv[2] ?? ['origin/main', 'main'].find(refExists);
if (base === undefined || !refExists(base)) {
  console.error(`check-changeset: base ref ${JSON.stringify(base)} not found; pass one (e.g. origin/main)`);
  process.exit(2);
}
const since = git('merge-base', 'HEAD', base);

// Committed, staged and unstaged changes since the merge base, plus new untracked files.
const changedFiles = [
  ...git('diff', '--name-only', '--no-relative', since).split('\n'),
  ...git('ls-files', '--others', '--exclude-standard').split('\n'),
].filter(Boolean);

const config = JSON.parse(readFileSync(path.join(root, '.changeset/config.json'), 'utf8'));
const patterns = config.changedFilePatterns ?? ['**'];
const matches = (file) => {
  let included = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) {
      if (included && path.matchesGlob(file, pattern.slice(1))) included = false;
    } else if (!included && path.matchesGlob(file, pattern)) included = true;
  }
  return included;
};

/** Workspace packages from pnpm-workspace.yaml's `packages:` list (plain `dir/*` or `dir` entries). */
function workspacePackages() {
  const yaml = readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const list = /^packages:\n((?:[ \t]+-.*\n?)+)/m.exec(yaml)?.[1] ?? '';
  const globs = [...list.matchAll(/-\s*['"]?([^'"\n]+?)['"]?\s*$/gm)].map((match) => match[1]);
  const dirs = globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    if (!existsSync(path.join(root, parent))) return [];
    return readdirSync(path.join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
  return dirs
    .filter((dir) => existsSync(path.join(root, dir, 'package.json')))
    .map((dir) => ({ dir, ...JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) }));
}

const versioned = workspacePackages().filter(
  (pkg) =>
    !(config.ignore ?? []).includes(pkg.name) && (!pkg.private || config.privatePackages?.version === true),
);
const changed = versioned.filter((pkg) =>
  changedFiles.some((file) => file.startsWith(`${pkg.dir}/`) && matches(file.slice(pkg.dir.length + 1))),
);

// Changesets added since the base: the package names in their front matter.
const changesetFiles = changedFiles.filter(
  (file) =>
    /^\.changeset\/[^/]+\.md$/.test(file) && !file.endsWith('README.md') && existsSync(path.join(root, file)),
);
const named = new Set();
let emptyChangeset = false;
for (const file of changesetFiles) {
  const match = /^---\n([\s\S]*?)\n?---\n/.exec(readFileSync(path.join(root, file), 'utf8'));
  if (match === null) {
    // changesets itself would refuse it at `pnpm version-packages`; say so now, not at release time.
    console.error(`check-changeset: ${file} has no front matter (---, then "package": bump lines, then ---)`);
    process.exit(1);
  }
  const frontMatter = match[1] ?? '';
  const names = [...frontMatter.matchAll(/^\s*["']?(@?[^"':\s]+)["']?\s*:\s*(major|minor|patch|none)\s*$/gm)];
  if (names.length === 0) emptyChangeset = true;
  for (const [, name] of names) named.add(name);
}

const missing = changed.filter((pkg) => !named.has(pkg.name));
console.log(
  `check-changeset: since ${base} (${since.slice(0, 12)}): changed ${changed.map((pkg) => pkg.name).join(', ') || 'none'}; ` +
    `changesets ${changesetFiles.join(', ') || 'none'}`,
);
if (missing.length > 0 && !emptyChangeset) {
  console.error(
    `check-changeset: no changeset names ${missing.map((pkg) => pkg.name).join(', ')}.\n` +
      'Run `npx -y pnpm@12 changeset`, pick the package(s) and the bump (for @petstore/schema any change to what ' +
      'it accepts or produces is major), and commit the file; `pnpm changeset --empty` if no release is needed.',
  );
  process.exit(1);
}
