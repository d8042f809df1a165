// Medians over rounds with their spread, and the markdown tables the bench prints.
import type { LoadResult } from './wrk.js';

export interface Measurement extends LoadResult {
  /** Peak resident set size of the server process during this run, in bytes. */
  peakRss: number;
}

/** Runs of one server on one scenario at one connection count, one per round. */
export type Runs = Measurement[];

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
}

export function summarize(values: number[]): Summary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

const MiB = 1024 * 1024;

function fmt(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `1,234 (1,100–1,300)`: median, then min–max over the rounds (only when there were several). */
export function withSpread(summary: Summary, digits: number, rounds: number): string {
  const main = fmt(summary.median, digits);
  return rounds > 1 ? `${main} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})` : main;
}

export interface Row {
  scenario: string;
  connections: number;
  api: Runs;
  reference: Runs;
}

export interface RowView {
  scenario: string;
  connections: number;
  apiRps: Summary;
  refRps: Summary;
  rpsRatio: number;
  apiP50: number;
  refP50: number;
  apiP99: Summary;
  refP99: Summary;
  p99Ratio: number;
  apiPeakRssMiB: number;
  refPeakRssMiB: number;
}

export function viewRow(row: Row): RowView {
  const apiRps = summarize(row.api.map((r) => r.rps));
  const refRps = summarize(row.reference.map((r) => r.rps));
  const apiP99 = summarize(row.api.map((r) => r.p99));
  const refP99 = summarize(row.reference.map((r) => r.p99));
  return {
    scenario: row.scenario,
    connections: row.connections,
    apiRps,
    refRps,
    rpsRatio: apiRps.median / refRps.median,
    apiP50: median(row.api.map((r) => r.p50)),
    refP50: median(row.reference.map((r) => r.p50)),
    apiP99,
    refP99,
    p99Ratio: apiP99.median / refP99.median,
    apiPeakRssMiB: Math.max(...row.api.map((r) => r.peakRss)) / MiB,
    refPeakRssMiB: Math.max(...row.reference.map((r) => r.peakRss)) / MiB,
  };
}

export function renderTable(rows: Row[], rounds: number): string {
  const header =
    '| scenario | conns | api req/s | reference req/s | api/ref | api p50 ms | api p99 ms | ref p50 ms | ref p99 ms | p99 api/ref | api peak RSS MiB | ref peak RSS MiB |';
  const rule = `| --- | ---: |${' ---: |'.repeat(10)}`;
  const lines = rows
    .map(viewRow)
    .map((v) =>
      [
        v.scenario,
        String(v.connections),
        withSpread(v.apiRps, 0, rounds),
        withSpread(v.refRps, 0, rounds),
        `${fmt(v.rpsRatio, 2)}x`,
        fmt(v.apiP50, 2),
        withSpread(v.apiP99, 1, rounds),
        fmt(v.refP50, 2),
        withSpread(v.refP99, 1, rounds),
        `${fmt(v.p99Ratio, 1)}x`,
        fmt(v.apiPeakRssMiB, 0),
        fmt(v.refPeakRssMiB, 0),
      ].join(' | '),
    );
  return [header, rule, ...lines.map((line) => `| ${line} |`)].join('\n');
}

export interface LoggingRow {
  scenario: string;
  withLog: Runs;
  withoutLog: Runs;
}

/** The api at LOG_LEVEL=info (default, one line per request) against LOG_LEVEL=warn, same load. */
export function renderLoggingTable(rows: LoggingRow[], rounds: number): string {
  const lines = rows.map(({ scenario, withLog, withoutLog }) => {
    const on = summarize(withLog.map((r) => r.rps));
    const off = summarize(withoutLog.map((r) => r.rps));
    const cost = 1 - on.median / off.median;
    return `| ${scenario} | ${withSpread(on, 0, rounds)} | ${withSpread(off, 0, rounds)} | ${fmt(cost * 100, 0)}% |`;
  });
  return [
    '| scenario (50 conns) | api req/s, LOG_LEVEL=info | api req/s, LOG_LEVEL=warn | throughput lost to logging |',
    '| --- | ---: | ---: | ---: |',
    ...lines,
  ].join('\n');
}
