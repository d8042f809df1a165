#!/usr/bin/env node
// Docs that name what is not there: every repository path and every pnpm script the documentation names must
// exist, so a doc cannot go on describing a file that was moved or a command that was renamed. Run by `pnpm lint`.
//
// What is checked, in README.md, docs/*.md and every other README.md (CHANGELOGs and changesets are history
// and are left alone):
// - relative Markdown links `[text](path#anchor)`: the path, from the document's folder, and the anchor, a
//   heading of the linked Markdown document;
// - paths in code (`apps/api/src/http/rest.ts`, `pets/pets.service.ts`, `db/`): a path with a folder and a file
//   extension, or a folder of the repository, must be in the work tree (and not ignored by git), from the root,
//   from the document's folder, or as the tail of one (`http/rest.ts` inside apps/api/src); a path git ignores
//   (built or generated: `dist/`, `.data/`) passes;
// - pnpm commands in code (`pnpm bench`, `npx -y pnpm@12 contract:check`, `pnpm --filter @petstore/x name`): the
//   script must be in the package.json it runs in, or be one of pnpm's own commands.
//
//   node scripts/check-doc-paths.mjs           exits 1 and lists each missing path or script
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

// The files of the work tree that git does not ignore: tracked (and not deleted) or new.
const present = git('ls-files', '-z', '--cached', '--others', '--exclude-standard')
  .split('\0')
  .filter((file) => file !== '' && existsSync(path.join(root, file)));
const presentSet = new Set(present);
const folders = new Set();
for (const file of present) {
  for (let i = file.indexOf('/'); i !== -1; i = file.indexOf('/', i + 1)) folders.add(file.slice(0, i));
}
const topLevel = new Set([...folders].filter((folder) => !folder.includes('/')));

/** The documents: README.md, docs/*.md and every other README.md but changesets' own. */
const documents = present.filter(
  (file) =>
    file === 'README.md' ||
    /^docs\/[^/]+\.md$/.test(file) ||
    (file.endsWith('/README.md') && !file.startsWith('.changeset/')),
);

/** A path's tail as present somewhere: `http/rest.ts` is `apps/api/src/http/rest.ts`'s. */
const isTail = (candidate) => {
  const suffix = `/${candidate}`;
  return (
    present.some((file) => file.endsWith(suffix)) || [...folders].some((folder) => folder.endsWith(suffix))
  );
};
const exists = (relative) => presentSet.has(relative) || folders.has(relative);

function ignoredByGit(relative) {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', relative], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether `target`, named in `document`, is in the repository. */
function pathExists(document, target) {
  const clean = target.replace(/\/$/, '');
  if (clean === '' || clean === '.') return true;
  const fromDocument = path.posix.normalize(path.posix.join(path.posix.dirname(document), clean));
  if (exists(fromDocument) || exists(path.posix.normalize(clean))) return true;
  if (!clean.startsWith('.') && isTail(clean)) return true;
  // A child of the path, since a folder pattern (`dist/`) matches only what git knows is a folder.
  return [fromDocument, clean].some((candidate) => ignoredByGit(candidate) || ignoredByGit(`${candidate}/_`));
}

/** Paths the docs name on purpose that are made elsewhere or later, and why. */
const MADE_ELSEWHERE = new Map([
  ['pglite/', 'the embedded database, made at run time inside DATA_DIR'],
  [
    '.changeset/contract-changes.md',
    'written by `pnpm version-packages` and consumed by `changeset version`',
  ],
]);

const FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|json|md|sh|ya?ml|prisma|sql|html|png|css)$/;

/** Whether a code span names a repository path we can check (not a URL path, a glob or a placeholder). */
function looksLikePath(text) {
  if (!/^[\w.@-]+(?:\/[\w.@-]+)*\/?$/.test(text) || !text.includes('/')) return false;
  if (/^[a-z]+\/[a-z0-9.+-]+$/i.test(text) && !FILE.test(text) && !topLevel.has(text.split('/')[0])) {
    return false; // a media type (`application/json`) or a name such as `a/b`
  }
  return FILE.test(text) || topLevel.has(text.split('/')[0]) || text.endsWith('/');
}

/** pnpm's own commands, which need no script. */
const PNPM_COMMANDS = new Set([
  'add',
  'audit',
  'config',
  'dlx',
  'exec',
  'i',
  'install',
  'link',
  'list',
  'ls',
  'outdated',
  'pack',
  'patch',
  'patch-commit',
  'prune',
  'publish',
  'rebuild',
  'remove',
  'store',
  'unlink',
  'up',
  'update',
  'why',
]);
const scriptsOf = new Map();
for (const file of present.filter((f) => f === 'package.json' || f.endsWith('/package.json'))) {
  const manifest = JSON.parse(readFileSync(path.join(root, file), 'utf8'));
  const scripts = Object.keys(manifest.scripts ?? {});
  if (file === 'package.json') scriptsOf.set('', scripts);
  if (manifest.name !== undefined) scriptsOf.set(manifest.name, scripts);
}

/** `pnpm [--filter X] [run] name`, as written in code: the problem, or undefined when the script exists. */
function checkCommand(command) {
  const match = /^(?:--filter[= ](\S+)\s+)?(?:run\s+)?([a-z][\w:.-]*)/.exec(command);
  if (match === null) return undefined;
  const [, filter, name] = match;
  if (PNPM_COMMANDS.has(name)) return undefined;
  const scripts = scriptsOf.get(filter ?? '');
  if (scripts === undefined) return `pnpm --filter ${filter}: no workspace package of that name`;
  return scripts.includes(name)
    ? undefined
    : `pnpm ${filter ? `--filter ${filter} ` : ''}${name}: no such script`;
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
const anchorCache = new Map();
function anchorsOf(document) {
  if (!anchorCache.has(document)) {
    const anchors = new Set();
    let fenced = false;
    for (const line of readFileSync(path.join(root, document), 'utf8').split('\n')) {
      if (/^\s*```/.test(line)) fenced = !fenced;
      const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (heading === null) continue;
      const slug = heading[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      let unique = slug;
      for (let n = 1; anchors.has(unique); n++) unique = `${slug}-${n}`;
      anchors.add(unique);
    }
    anchorCache.set(document, anchors);
  }
  return anchorCache.get(document);
}

const problems = [];
for (const document of documents) {
  const text = readFileSync(path.join(root, document), 'utf8');
  const lines = text.split('\n');
  let fenced = false;
  lines.forEach((line, index) => {
    const where = `${document}:${index + 1}`;
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return;
    }
    // Links: [text](target), not URLs, not anchors alone.
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [file, anchor] = decodeURI(target).split('#');
      if (file !== '' && !pathExists(document, file)) {
        problems.push(`${where}: link to ${target}: no such file or folder`);
        continue;
      }
      // A heading of a Markdown document (this one when the link is `#anchor` alone).
      const linked =
        file === '' ? document : path.posix.normalize(path.posix.join(path.posix.dirname(document), file));
      if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) {
        problems.push(`${where}: link to ${target}: ${linked} has no heading #${anchor}`);
      }
    }
    const code = fenced ? [line] : [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    for (const span of code) {
      const named = span.trim();
      if (!fenced && looksLikePath(named) && !MADE_ELSEWHERE.has(named) && !pathExists(document, named)) {
        problems.push(`${where}: \`${named}\`: no such file or folder`);
      }
      // A command starts the span or line (after `VAR=value`s or `cd x &&`), or follows `&&`, `;`, `|`, `$(`.
      const commands =
        /(?:^\s*(?:[A-Z_]+=\S*\s+)*|(?:&&|;|\||\$\()\s*)(?:npx -y pnpm@\d+|pnpm)\s+((?:--filter[= ]\S+\s+)?(?:run\s+)?[^\s`]+)/g;
      for (const [, command] of span.matchAll(commands)) {
        const problem = checkCommand(command);
        if (problem !== undefined) problems.push(`${where}: ${problem}`);
      }
    }
  });
}

if (problems.length > 0) {
  console.error(`check-doc-paths: the docs name what does not exist:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-doc-paths: every path and pnpm script named in ${documents.length} documents exists`);
