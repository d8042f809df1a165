// pnpm contract:check               compare with the last release; exit 1 on a break without its major changeset
// pnpm contract:check --wire-only   the same without the type checker (seconds faster)
// cli.ts changelog                  before `changeset version`: write the contract changes as a changeset
// cli.ts release                    after `changeset version`: keep the released contract as the new baseline
//
// Run with `node --conditions=@petstore/source --import tsx` (the root scripts do): it reads the packages' sources.
// CONTRACT_GUARD_TODAY=YYYY-MM-DD sets "today" for the sunset rule.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as schema from '@petstore/schema';
import { latestBaselineDir, PACKAGE_DIRS, ROOT, releaseLabel, writeBaseline } from './baseline.js';
import { describeContract } from './describe-contract.js';
import { changelogText, compareContract, judge, neededBumps, pendingChangesets } from './gate.js';
import type { TsPackage } from './typescript-check.js';

const [command = 'check', ...flags] = process.argv.slice(2);
const today = process.env.CONTRACT_GUARD_TODAY ?? new Date().toISOString().slice(0, 10);
const current = Object.fromEntries(
  Object.entries(PACKAGE_DIRS).map(([pkg, dir]) => [pkg, path.join(dir, 'src/index.ts')]),
) as Record<TsPackage, string>;

function baselineOrExit(): string {
  const baseline = latestBaselineDir();
  if (baseline === undefined) {
    console.error(
      'contract:check: no release baseline in tooling/contract-guard/released; write one with `release`',
    );
    process.exit(2);
  }
  return baseline;
}

if (command === 'check') {
  const baseline = baselineOrExit();
  const findings = compareContract({
    baseline,
    schema,
    current,
    today,
    wireOnly: flags.includes('--wire-only'),
  });
  const verdict = judge(findings, await pendingChangesets(ROOT), path.basename(baseline));
  (verdict.ok ? console.log : console.error)(verdict.report);
  process.exit(verdict.ok ? 0 : 1);
} else if (command === 'changelog') {
  const baseline = baselineOrExit();
  const findings = compareContract({ baseline, schema, current, today });
  const text = changelogText(findings, releaseLabel(baseline));
  if (text === '') {
    console.log('contract guard: no contract change since the last release; no changelog entry written');
  } else {
    const file = path.join(ROOT, '.changeset', 'contract-changes.md');
    const { summaries } = await pendingChangesets(ROOT);
    const bumps = [...neededBumps(findings, summaries)].map(([pkg, bump]) => `"${pkg}": ${bump}`);
    writeFileSync(file, `---\n${bumps.join('\n')}\n---\n\n${text}\n`);
    console.log(`contract guard: wrote ${path.relative(ROOT, file)}:\n${text}`);
  }
} else if (command === 'release') {
  execFileSync(
    'npx',
    ['-y', 'pnpm@12', 'turbo', 'run', 'build', '--filter=@petstore/schema', '--filter=@petstore/client'],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const dir = await writeBaseline(describeContract(schema));
  console.log(`contract guard: wrote the release baseline ${path.relative(ROOT, dir)}`);
  if (!existsSync(path.join(dir, 'openapi.json'))) process.exit(1);
} else {
  console.error(`unknown command ${command}: check, changelog or release`);
  process.exit(2);
}
