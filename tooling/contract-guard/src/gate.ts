// The gate: every difference from the last release, and whether the pending changesets allow it. A break needs a
// major changeset for each package it reaches; a refused change (a deprecated operation removed before its sunset)
// fails whatever the changesets say; compatible changes pass.
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

/** The highest bump the pending changesets give each package. */
export async function pendingBumps(root: string): Promise<Map<string, Bump>> {
  const bumps = new Map<string, Bump>();
  for (const changeset of await readChangesets(root)) {
    for (const release of changeset.releases) {
      const was = bumps.get(release.name) ?? 'none';
      if (RANK[release.type] > RANK[was]) bumps.set(release.name, release.type);
    }
  }
  return bumps;
}

export interface Verdict {
  ok: boolean;
  /** Packages a break reaches that no pending changeset bumps as major. */
  missingMajor: string[];
  refused: Finding[];
  report: string;
}

const line = (finding: Finding) => `  - ${finding.where}: ${finding.what}`;

/** Whether the findings may be released with these pending bumps, and the report that says why. */
export function judge(findings: Finding[], bumps: Map<string, Bump>, baselineName: string): Verdict {
  const breaks = findings.filter((finding) => finding.kind === 'break');
  const refused = findings.filter((finding) => finding.kind === 'refused');
  const compatible = findings.filter((finding) => finding.kind === 'compatible');
  const reached = [...new Set(breaks.flatMap((finding) => finding.packages))].sort();
  const missingMajor = reached.filter((pkg) => bumps.get(pkg) !== 'major');
  const out: string[] = [`contract:check: compared with the release baseline ${baselineName}`];

  if (findings.length === 0) out.push('No change to the contract.');
  for (const finding of refused)
    out.push(`REFUSED (no version allows it): ${finding.where}: ${finding.what}`);
  const audiences = [...new Set(breaks.map((finding) => finding.audience))];
  for (const audience of audiences) {
    const own = breaks.filter((finding) => finding.audience === audience);
    out.push(`Breaks ${audience} (${own.length}):`, ...own.map(line));
  }
  const additions = compatible.filter((finding) => !finding.documentation);
  if (additions.length > 0) out.push(`Compatible (${additions.length}):`, ...additions.map(line));
  const wording = compatible.length - additions.length;
  if (wording > 0) out.push(`Compatible: documentation reworded in ${wording} place(s).`);
  if (reached.length > 0) {
    const state = reached.map((pkg) => `${pkg} ${bumps.get(pkg) ?? 'no changeset'}`).join(', ');
    out.push(`Needs a major version of ${reached.join(' and ')}; pending changesets: ${state}.`);
  }
  if (missingMajor.length > 0) {
    out.push(
      `FAILED: no major changeset for ${missingMajor.join(', ')}. Either undo the breaking changes above, or run ` +
        '`pnpm changeset`, choose major for each of these packages and say in it what consumers must change.',
    );
  }
  if (refused.length > 0) {
    out.push(
      'FAILED: a deprecated operation may only be removed on or after its sunset date (its `deprecated` entry, in contract/operations.ts of @petstore/schema).',
    );
  }
  const ok = missingMajor.length === 0 && refused.length === 0;
  if (ok) out.push(breaks.length > 0 ? 'OK: every break has its major changeset.' : 'OK: compatible.');
  return { ok, missingMajor, refused, report: out.join('\n') };
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
  for (const finding of breaks)
    out.push(`- **Breaks ${finding.audience}**: ${finding.where}: ${finding.what}`);
  for (const finding of additions) out.push(`- Compatible: ${finding.where}: ${finding.what}`);
  if (wording.length > 0)
    out.push(`- Documentation reworded in ${wording.length} place(s); nothing else changed there.`);
  return out.join('\n');
}

/** The bump each package needs for these findings: major for a break, minor for an addition, patch for wording. */
export function neededBumps(findings: Finding[]): Map<TsPackage, Bump> {
  const bumps = new Map<TsPackage, Bump>();
  const raise = (pkg: TsPackage, bump: Bump) => {
    if (RANK[bump] > RANK[bumps.get(pkg) ?? 'none']) bumps.set(pkg, bump);
  };
  for (const finding of findings) {
    if (finding.kind !== 'compatible') {
      for (const pkg of finding.packages) raise(pkg as TsPackage, 'major');
    } else {
      for (const pkg of TS_PACKAGES) raise(pkg, finding.documentation ? 'patch' : 'minor');
    }
  }
  return bumps;
}
