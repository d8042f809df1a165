// The gate: every difference from the last release, and whether the pending changesets allow it. A break needs, for
// each package it reaches, the version its operation's level asks (`bumpForBreak`: a major for a stable operation
// and for anything no operation owns, a minor for an experimental one, a minor for a beta one when a changeset
// names it); a refused change (a deprecated operation removed before its sunset) fails whatever the changesets
// say; compatible changes pass.
import path from 'node:path';
import { readChangesets } from '@changesets/read';
import { GUARD_DIR, readBaseline } from './baseline.js';
import { describeContract, type SchemaModule } from './describe-contract.js';
import type { Finding } from './finding.js';
import { checkTypeScript, TS_PACKAGES, type TsPackage } from './typescript-check.js';
import { diffWire } from './wire-diff.js';

export interface CompareOptions {
  /** The baseline directory to compare with. */
  baseline: string;
  /** The current `@petstore/schema` module (or a copy under test). */
  schema: SchemaModule;
  /** Entry files of the current packages for the type checker. */
  current: Record<TsPackage, string>;
  /** Today (ISO date); the sunset rule compares with it. */
  today: string;
  /** Skip the type checker (wire differences only). */
  wireOnly?: boolean;
}

/** Every difference between the baseline and the current contract, classified. */
export function compareContract(options: CompareOptions): Finding[] {
  const baseline = readBaseline(options.baseline, options.schema);
  const current = describeContract(options.schema);
  const findings = [
    ...diffWire('rest', baseline.documents.openapi, current.openapi, options),
    ...diffWire('trpc', baseline.documents.trpc, current.trpc, options),
  ];
  if (!options.wireOnly) {
    findings.push(
      ...checkTypeScript({
        baseline: options.baseline,
        current: options.current,
        workDir: path.join(GUARD_DIR, '.check'),
      }),
    );
  }
  return findings;
}

export type Bump = 'major' | 'minor' | 'patch' | 'none';
const RANK: Record<Bump, number> = { none: 0, patch: 1, minor: 2, major: 3 };

/** The pending changesets: the highest bump they give each package, and their texts. */
export interface Pending {
  bumps: Map<string, Bump>;
  /** What each pending changeset says (a break of a beta operation is allowed in a minor when one names it). */
  summaries: readonly string[];
}

export async function pendingChangesets(root: string): Promise<Pending> {
  const bumps = new Map<string, Bump>();
  const changesets = await readChangesets(root);
  for (const changeset of changesets) {
    for (const release of changeset.releases) {
      const was = bumps.get(release.name) ?? 'none';
      if (RANK[release.type] > RANK[was]) bumps.set(release.name, release.type);
    }
  }
  return { bumps, summaries: changesets.map((changeset) => changeset.summary) };
}

/**
 * The version a break needs, by the level its operation had in the last release: a major for a stable operation
 * (and for what no operation owns: the Error body, a TypeScript export); a minor for an experimental one; for a
 * beta one a minor when a pending changeset names the operation (its operationId: the break is meant and
 * announced), otherwise a major.
 */
function bumpForBreak(finding: Finding, summaries: readonly string[]): Bump {
  const { stability, operation } = finding;
  if (stability === 'experimental') return 'minor';
  if (stability === 'beta' && operation !== undefined) {
    const named = new RegExp(`\\b${operation}\\b`);
    if (summaries.some((summary) => named.test(summary))) return 'minor';
  }
  return 'major';
}

export interface Verdict {
  ok: boolean;
  /** Packages a break reaches that needs a major, and no pending changeset bumps as major. */
  missingMajor: string[];
  /** Packages reached only by breaks a minor allows (beta, experimental) that no pending changeset bumps so far. */
  missingMinor: string[];
  refused: Finding[];
  report: string;
}

const line = (finding: Finding) => `  - ${finding.where}: ${finding.what}`;

/** Whether the findings may be released with these pending changesets, and the report that says why. */
export function judge(findings: Finding[], pending: Pending, baselineName: string): Verdict {
  const { bumps, summaries } = pending;
  const breaks = findings.filter((finding) => finding.kind === 'break');
  const refused = findings.filter((finding) => finding.kind === 'refused');
  const compatible = findings.filter((finding) => finding.kind === 'compatible');
  const majorBreaks = breaks.filter((finding) => bumpForBreak(finding, summaries) === 'major');
  const minorBreaks = breaks.filter((finding) => bumpForBreak(finding, summaries) === 'minor');
  const reachedBy = (some: Finding[]) => [...new Set(some.flatMap((finding) => finding.packages))].sort();
  const needMajor = reachedBy(majorBreaks);
  const needMinor = reachedBy(minorBreaks).filter((pkg) => !needMajor.includes(pkg));
  const missingMajor = needMajor.filter((pkg) => bumps.get(pkg) !== 'major');
  const missingMinor = needMinor.filter((pkg) => RANK[bumps.get(pkg) ?? 'none'] < RANK.minor);
  const state = (packages: string[]) =>
    packages.map((pkg) => `${pkg} ${bumps.get(pkg) ?? 'no changeset'}`).join(', ');
  const out: string[] = [`contract:check: compared with the release baseline ${baselineName}`];

  if (findings.length === 0) out.push('No change to the contract.');
  for (const finding of refused)
    out.push(`REFUSED (no version allows it): ${finding.where}: ${finding.what}`);
  for (const audience of new Set(majorBreaks.map((finding) => finding.audience))) {
    const own = majorBreaks.filter((finding) => finding.audience === audience);
    out.push(`Breaks ${audience} (${own.length}):`, ...own.map(line));
  }
  for (const audience of new Set(minorBreaks.map((finding) => finding.audience))) {
    const own = minorBreaks.filter((finding) => finding.audience === audience);
    out.push(
      `Breaks ${audience} in operations that are not stable, which a minor version allows (${own.length}):`,
      ...own.map((finding) => `${line(finding)} [${finding.stability}]`),
    );
  }
  const additions = compatible.filter((finding) => !finding.documentation);
  if (additions.length > 0) out.push(`Compatible (${additions.length}):`, ...additions.map(line));
  const wording = compatible.length - additions.length;
  if (wording > 0) out.push(`Compatible: documentation reworded in ${wording} place(s).`);
  if (needMajor.length > 0) {
    out.push(`Needs a major version of ${needMajor.join(' and ')}; pending changesets: ${state(needMajor)}.`);
  }
  if (needMinor.length > 0) {
    out.push(
      `Needs at least a minor version of ${needMinor.join(' and ')}; pending changesets: ${state(needMinor)}.`,
    );
  }
  if (missingMajor.length > 0) {
    const beta = [
      ...new Set(majorBreaks.filter((finding) => finding.stability === 'beta').map((f) => f.operation)),
    ];
    out.push(
      `FAILED: no major changeset for ${missingMajor.join(', ')}. Either undo the breaking changes above, or run ` +
        '`pnpm changeset`, choose major for each of these packages and say in it what consumers must change.' +
        (beta.length === 0
          ? ''
          : ` A break of a beta operation (${beta.join(', ')}) needs only a minor when a pending changeset names it.`),
    );
  }
  if (missingMinor.length > 0) {
    out.push(
      `FAILED: no minor (or major) changeset for ${missingMinor.join(', ')}: a break of a beta or experimental ` +
        'operation still needs a minor version. Run `pnpm changeset`, choose minor and say what changes.',
    );
  }
  if (refused.length > 0) {
    out.push(
      'FAILED: a deprecated operation may only be removed on or after its sunset date (its `deprecated` entry, in contract/operations.ts of @petstore/schema).',
    );
  }
  const ok = missingMajor.length === 0 && missingMinor.length === 0 && refused.length === 0;
  if (ok) {
    out.push(
      breaks.length > 0 ? "OK: every break has the version its operation's level needs." : 'OK: compatible.',
    );
  }
  return { ok, missingMajor, missingMinor, refused, report: out.join('\n') };
}

/**
 * The contract changes in plain words, for the release's changelog: what breaks whom first, then what was added.
 * Empty when nothing changed.
 */
export function changelogText(findings: Finding[], since: string): string {
  if (findings.length === 0) return '';
  const breaks = findings.filter((finding) => finding.kind !== 'compatible');
  const additions = findings.filter((finding) => finding.kind === 'compatible' && !finding.documentation);
  const wording = findings.filter((finding) => finding.kind === 'compatible' && finding.documentation);
  const out = [`Contract changes since ${since} (written by the contract guard):`, ''];
  for (const finding of breaks) {
    const level =
      finding.stability === undefined || finding.stability === 'stable'
        ? ''
        : ` (${finding.stability} operation)`;
    out.push(`- **Breaks ${finding.audience}**${level}: ${finding.where}: ${finding.what}`);
  }
  for (const finding of additions) out.push(`- Compatible: ${finding.where}: ${finding.what}`);
  if (wording.length > 0)
    out.push(`- Documentation reworded in ${wording.length} place(s); nothing else changed there.`);
  return out.join('\n');
}

/**
 * The bump each package needs for these findings: for a break what its operation's level asks (`bumpForBreak`, with
 * the pending changesets' texts), minor for an addition, patch for wording.
 */
export function neededBumps(findings: Finding[], summaries: readonly string[]): Map<TsPackage, Bump> {
  const bumps = new Map<TsPackage, Bump>();
  const raise = (pkg: TsPackage, bump: Bump) => {
    if (RANK[bump] > RANK[bumps.get(pkg) ?? 'none']) bumps.set(pkg, bump);
  };
  for (const finding of findings) {
    if (finding.kind !== 'compatible') {
      const bump = finding.kind === 'refused' ? 'major' : bumpForBreak(finding, summaries);
      for (const pkg of finding.packages) raise(pkg as TsPackage, bump);
    } else {
      for (const pkg of TS_PACKAGES) raise(pkg, finding.documentation ? 'patch' : 'minor');
    }
  }
  return bumps;
}
