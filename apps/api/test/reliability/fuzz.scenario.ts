/**
 * Fuzz: thousands of hostile requests (fast-check, seeded) at every route of the real API in a child
 * process. Contract: never a 5xx; every error the app sends is the interface's Error body with `status`
 * equal to the HTTP status (tRPC: in `error.data.error`); the process stays up; its memory stays bounded.
 *
 * Node's HTTP parser answers some requests itself, before Express sees them (an invalid header character,
 * an unknown method, headers over 16 KiB): a bare 400/431 with no body. Those are accepted when they are
 * 4xx, and listed in the result (`details.nodeParserAnswers`) so the report says which.
 */
import { ERROR_CODES, ErrorSchema } from '@petstore/schema';
import fc from 'fast-check';
import superjson from 'superjson';
import { RELIABILITY_API_KEY, startApiProcess } from './api-process.js';
import { type HostileCase, hostileRequestArbitrary, mandatoryCases } from './hostile-requests.js';
import { type RawOutcome, sendRaw } from './raw-http.js';
import {
  requestJson,
  type ScenarioDatabase,
  type ScenarioEnvironment,
  type ScenarioResult,
  withDatabase,
} from './scenario-support.js';

export interface FuzzOptions {
  database: ScenarioDatabase;
  /** fast-check seed: the same seed sends the same requests. */
  seed: number;
  /** Generated requests (the mandatory cases come on top). */
  numRuns: number;
  /** Stop generating after this long, whatever numRuns says. */
  timeLimitMs: number;
  /** Largest accepted growth of the server's resident memory from after warm-up to the end. */
  memoryGrowthLimitBytes: number;
}

export const DEFAULT_FUZZ_SEED = 20_261_121;

const RESPONSE_TIMEOUT_MS = 10_000;

type Verdict =
  | { ok: true; via: 'app' | 'node-parser' | 'client-gave-up'; mislabelled?: boolean }
  | { ok: false; problem: string };

function isErrorBody(value: unknown, httpStatus: number | undefined): string | undefined {
  const parsed = ErrorSchema.safeParse(value);
  if (!parsed.success) return `not an Error body: ${JSON.stringify(value)?.slice(0, 200)}`;
  const { code, status } = parsed.data;
  if (httpStatus !== undefined && status !== httpStatus)
    return `Error.status ${status} != HTTP ${httpStatus}`;
  const expected = (ERROR_CODES as Record<string, number>)[code];
  if (expected !== undefined && expected !== status) return `code ${code} carries status ${status}`;
  return undefined;
}

/** The Error inside a tRPC error envelope `{ error: <superjson of { data: { error } }> }`. */
function trpcErrorProblem(envelope: unknown, httpStatus: number | undefined): string | undefined {
  const raw = (envelope as { error?: unknown } | null)?.error;
  if (raw === undefined) return undefined; // a successful item of a batch
  let shape: { data?: { error?: unknown } };
  try {
    shape = superjson.deserialize(raw as never);
  } catch {
    return `tRPC error is not superjson: ${JSON.stringify(raw).slice(0, 200)}`;
  }
  return isErrorBody(shape?.data?.error, httpStatus);
}

/** A 501 `not_implemented`: the verdict on a method the server does not implement (RFC 9110 15.6.2), no fault. */
function isMethodVerdict({ status, body }: { status: number; body: Buffer }): boolean {
  if (status !== 501) return false;
  try {
    return ErrorSchema.parse(JSON.parse(body.toString('utf8'))).code === 'not_implemented';
  } catch {
    return false;
  }
}

/** Judges one answer against the contract. */
function judge(hostile: HostileCase, outcome: RawOutcome): Verdict {
  const { request } = hostile;
  if (outcome.kind === 'timeout') return { ok: false, problem: `no answer within ${RESPONSE_TIMEOUT_MS} ms` };
  if (outcome.kind === 'closed') {
    if (request.incomplete) return { ok: true, via: 'client-gave-up' };
    // A body far over the limit: the server answers 413 and closes while the client is still sending,
    // and the reset can discard the answer before the client reads it. Not a server fault.
    if ((request.body?.length ?? 0) > 64 * 1024) return { ok: true, via: 'client-gave-up' };
    return { ok: false, problem: `connection closed without an answer (${outcome.error ?? 'EOF'})` };
  }
  const { status, headers, body } = outcome.response;
  if (status >= 500 && !isMethodVerdict(outcome.response))
    return { ok: false, problem: `HTTP ${status}: ${body.toString('utf8').slice(0, 300)}` };
  // Every answer of the app carries X-Request-Id (set by the first middleware). Requests the HTTP parser
  // refuses are answered by the server before the app, without it, but still with an Error body.
  if (!headers.has('x-request-id')) {
    const text = body.toString('utf8');
    let error: unknown;
    try {
      error = JSON.parse(text);
    } catch {}
    const parsed = ErrorSchema.safeParse(error);
    if (status >= 400 && (status < 500 || status === 501) && parsed.success && parsed.data.status === status)
      return { ok: true, via: 'node-parser' };
    return { ok: false, problem: `HTTP ${status} without X-Request-Id or Error body: ${text.slice(0, 200)}` };
  }
  if (status < 400 || request.method === 'HEAD') return { ok: true, via: 'app' };
  // tRPC sends some of its own errors (wrong method, wrong Content-Type) as JSON labelled text/plain; the
  // envelope is still checked below, the label is counted apart (details.trpcJsonAsTextPlain).
  const jsonLabelled = /^application\/json/.test(headers.get('content-type')?.[0] ?? '');
  if (!jsonLabelled && hostile.transport === 'rest') {
    return { ok: false, problem: `HTTP ${status} with Content-Type ${headers.get('content-type')?.[0]}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, problem: `HTTP ${status} body is not JSON: ${body.toString('utf8').slice(0, 200)}` };
  }
  let problem: string | undefined;
  if (hostile.transport === 'rest' || ErrorSchema.safeParse(json).success) {
    problem = isErrorBody(json, status);
  } else if (Array.isArray(json)) {
    // A batch: each call has its own status; the HTTP status is theirs if they agree, else 207.
    problem = json.map((item) => trpcErrorProblem(item, undefined)).find((p) => p !== undefined);
  } else {
    problem =
      (json as { error?: unknown } | null)?.error === undefined
        ? `tRPC answer without error: ${JSON.stringify(json).slice(0, 200)}`
        : trpcErrorProblem(json, status);
  }
  if (problem !== undefined) return { ok: false, problem: `HTTP ${status}: ${problem}` };
  return jsonLabelled ? { ok: true, via: 'app' } : { ok: true, via: 'app', mislabelled: true };
}

/** Groups similar labels ("12345-char header value" and "678-char header value") for the summary. */
const familyKey = (label: string) => label.replace(/\d+/g, 'N').replace(/\s+on\s+\/\S+$/, '');

export async function runFuzzScenario(
  env: ScenarioEnvironment,
  options: FuzzOptions,
): Promise<ScenarioResult> {
  return withDatabase(env, options.database, 'fuzz', async (target) => {
    const api = await startApiProcess({ ...target, env: { LOG_LEVEL: 'silent' } });
    try {
      const hostHeader = `${api.host}:${api.port}`;
      const violations: string[] = [];
      const problems = new Map<string, { count: number; example: string }>();
      const nodeParserAnswers = new Map<string, Set<number>>();
      let sent = 0;
      let serverErrors = 0;
      let byApp = 0;
      let clientGaveUp = 0;
      const mislabelled = new Map<string, number>();

      // Warm-up, so the baseline memory includes what any process has after its first requests.
      for (let i = 0; i < 50; i++) await requestJson(`${api.baseUrl}/pets?limit=5`);
      const baselineRss = await api.rss();
      let peakRss = baselineRss;
      const sampler = setInterval(() => {
        api
          .rss()
          .then((rss) => {
            peakRss = Math.max(peakRss, rss);
          })
          .catch(() => {});
      }, 250);

      const check = async (hostile: HostileCase) => {
        sent++;
        const outcome = await sendRaw(api.host, api.port, hostile.request, RESPONSE_TIMEOUT_MS);
        if (
          outcome.kind === 'response' &&
          outcome.response.status >= 500 &&
          !isMethodVerdict(outcome.response)
        )
          serverErrors++;
        const verdict = judge(hostile, outcome);
        if (!verdict.ok) {
          const key = `${hostile.family}: ${familyKey(hostile.label)}: ${verdict.problem.slice(0, 80)}`;
          const entry = problems.get(key) ?? {
            count: 0,
            example: `${hostile.request.method} ${hostile.request.target.slice(0, 200)} -> ${verdict.problem}`,
          };
          entry.count++;
          problems.set(key, entry);
        } else if (verdict.via === 'node-parser' && outcome.kind === 'response') {
          const key = `${hostile.family}: ${familyKey(hostile.label)}`;
          nodeParserAnswers.set(key, (nodeParserAnswers.get(key) ?? new Set()).add(outcome.response.status));
        } else if (verdict.via === 'app') {
          byApp++;
          if (verdict.mislabelled) {
            const key = `${hostile.request.method} ${hostile.request.target.split('?')[0]?.slice(0, 40)}`;
            mislabelled.set(key, (mislabelled.get(key) ?? 0) + 1);
          }
        } else clientGaveUp++;
        return true; // every problem is collected; the run goes on to find the others
      };

      const started = Date.now();
      for (const hostile of mandatoryCases(hostHeader, RELIABILITY_API_KEY)) await check(hostile);
      await fc.assert(fc.asyncProperty(hostileRequestArbitrary(hostHeader, RELIABILITY_API_KEY), check), {
        seed: options.seed,
        numRuns: options.numRuns,
        plugins: [fc.interruptAfterTimeLimit(options.timeLimitMs)],
      });
      const elapsedMs = Date.now() - started;
      clearInterval(sampler);

      // Still up and still serving?
      const alive = api.child.exitCode === null && api.child.signalCode === null;
      const afterwards = alive
        ? await requestJson(`${api.baseUrl}/pets?limit=1`).catch(() => undefined)
        : undefined;
      const health = alive ? await fetch(`http://${hostHeader}/healthz`).catch(() => undefined) : undefined;
      const finalRss = alive ? await api.rss() : 0;
      peakRss = Math.max(peakRss, finalRss);

      for (const [key, { count, example }] of problems)
        violations.push(`${key} (x${count}), e.g. ${example}`);
      if (!alive) violations.push(`the api process died during the fuzz run: ${api.output().slice(-2000)}`);
      else if (afterwards?.status !== 200)
        violations.push(`after the fuzz run GET /v1/pets answered ${afterwards?.status}`);
      if (alive && finalRss - baselineRss > options.memoryGrowthLimitBytes) {
        violations.push(
          `resident memory grew by ${mib(finalRss - baselineRss)} (limit ${mib(options.memoryGrowthLimitBytes)})`,
        );
      }

      return {
        scenario: 'fuzz',
        database: options.database,
        requestsSent: sent,
        faultsInjected: sent, // every request is a hostile input
        serverErrors,
        acknowledgedWritesLost: undefined,
        recoveryMs: undefined,
        details: {
          seed: options.seed,
          elapsedMs,
          answeredByApp: byApp,
          clientGaveUp,
          nodeParserAnswers: Object.fromEntries(
            [...nodeParserAnswers].map(([key, statuses]) => [key, [...statuses]]),
          ),
          trpcJsonAsTextPlain: Object.fromEntries(mislabelled),
          rss: { baseline: mib(baselineRss), peak: mib(peakRss), final: mib(finalRss) },
          healthz: health?.status ?? 'no answer',
        },
        violations,
      };
    } finally {
      await api.kill();
    }
  });
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
