import { ALL_CHECKS } from './checks/all.checks.js';

const cell = (text: string | undefined) => (text ?? '').replaceAll('|', '\\|').replaceAll('\n', ' ');

/**
 * The README's check list: each check, what it asserts, the section of the interface it enforces (the checks
 * with one make up the `interface` profile) and the decision of ours it adds under `reference`.
 */
export function checkTable(): string {
  const rows = ALL_CHECKS.map(
    (check) =>
      `| \`${check.id}\` | ${cell(check.description)} | ${cell(check.interfaceDescription) || (check.spec === undefined ? '—' : 'the same')} | ${cell(check.spec) || '—'} | ${cell(check.decision) || '—'} |`,
  );
  return [
    '| id | a conforming deployment... (under `reference`) | what it asserts under `interface` | interface section it enforces (`interface` and `reference`) | decision it adds (`reference` only) |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
