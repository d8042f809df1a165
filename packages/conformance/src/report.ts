import type { CheckResult, ConformanceReport, Reproduction } from './run-conformance.js';

/** Quotes for a POSIX shell; the API key placeholder stays a live `$API_KEY` expansion. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`).replaceAll('$API_KEY', `'"$API_KEY"'`)}'`;
}

/** A curl command line that sends the same request (bodies cut in the report are marked, not replayed). */
export function curlOf(reproduction: Reproduction): string {
  const parts = ['curl -i', `-X ${reproduction.method}`, shellQuote(reproduction.url)];
  for (const [name, value] of Object.entries(reproduction.headers))
    parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (reproduction.body !== undefined) {
    if (/\\x[0-9a-f]{2}/.test(reproduction.body)) {
      return `printf ${shellQuote(reproduction.body.replaceAll('%', '%%'))} | ${parts.join(' ')} --data-binary @-`;
    }
    parts.push(`--data-raw ${shellQuote(reproduction.body)}`);
  }
  return parts.join(' ');
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

/**
 * One line per check: `ok <id> - <description>`, or `not ok <id> - <reason>` followed by indented `#` lines
 * that reproduce it (method, path, body, what came back, a curl command).
 */
export function formatResult(result: CheckResult): string {
  if (result.ok && result.skipped !== undefined)
    return `ok ${result.id} - ${result.description} # SKIP ${oneLine(result.skipped)}`;
  if (result.ok) return `ok ${result.id} - ${result.description}`;
  const lines = [`not ok ${result.id} - ${oneLine(result.reason ?? 'failed')}`];
  const reproduction = result.reproduction;
  if (reproduction) {
    const { pathname, search } = new URL(reproduction.url);
    lines.push(`  # request: ${reproduction.method} ${pathname}${search}`);
    if (reproduction.body !== undefined) {
      const cut =
        reproduction.bodyBytes !== undefined && reproduction.body.endsWith('…')
          ? ` (${reproduction.bodyBytes} bytes, cut)`
          : '';
      lines.push(`  # body: ${oneLine(reproduction.body)}${cut}`);
    }
    if (reproduction.response) {
      lines.push(
        `  # response: ${reproduction.response.status} ${oneLine(reproduction.response.body).slice(0, 500)}`,
      );
    }
    lines.push(`  # reproduce: ${curlOf(reproduction)}`);
  }
  return lines.join('\n');
}

/** The closing line, alone on its line: `N passed, M failed` (`, K skipped` when a check could not apply). */
export function formatSummary(report: Pick<ConformanceReport, 'passed' | 'failed' | 'skipped'>): string {
  const skipped = report.skipped > 0 ? `, ${report.skipped} skipped` : '';
  return `${report.passed} passed, ${report.failed} failed${skipped}`;
}

/** XML 1.0 cannot carry most control characters or lone surrogates at all, even escaped (its `Char` production). */
function xmlChars(text: string): string {
  let kept = '';
  // Iterates code points: a lone surrogate comes out alone, a pair as one character.
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      code >= 0x10000;
    kept += allowed ? char : '\ufffd';
  }
  return kept;
}

function xml(text: string): string {
  return xmlChars(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** A JUnit XML report: one testcase per check, classname = the id's first segment (auth, listPets, ...). */
export function formatJUnit(report: ConformanceReport): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const cases = report.results.map((result) => {
    const classname = `petstore-conformance.${result.id.split('.')[0]}`;
    const open = `    <testcase classname="${xml(classname)}" name="${xml(result.id)}" time="${seconds(result.durationMs)}">`;
    const description = `      <system-out>${xml(result.description)}</system-out>`;
    if (result.ok && result.skipped !== undefined)
      return `${open}\n      <skipped message="${xml(oneLine(result.skipped))}"/>\n${description}\n    </testcase>`;
    if (result.ok) return `${open}\n${description}\n    </testcase>`;
    const details = formatResult(result).split('\n').slice(1).join('\n');
    const failure = `      <failure message="${xml(oneLine(result.reason ?? 'failed'))}" type="ConformanceFailure">${xml(details)}</failure>`;
    return `${open}\n${failure}\n${description}\n    </testcase>`;
  });
  const totals = `tests="${report.results.length}" failures="${report.failed}" errors="0" skipped="${report.skipped}" time="${seconds(report.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="petstore-conformance" ${totals}>`,
    `  <testsuite name="petstore-conformance" ${totals} timestamp="${new Date().toISOString()}">`,
    '    <properties>',
    `      <property name="baseUrl" value="${xml(report.baseUrl)}"/>`,
    `      <property name="seed" value="${report.seed}"/>`,
    `      <property name="numRuns" value="${report.numRuns}"/>`,
    `      <property name="profile" value="${report.profile}"/>`,
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
