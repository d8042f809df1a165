/**
 * Hostile probes: every fixed probe of `hostile-probes.ts` (one group per defect an outside review found, with
 * the rule's neighbours) sent over raw HTTP to the real API in a child process, rate limit on. Contract, per
 * probe: never a 5xx; the expected status and Error code; the Error body (REST) or tRPC's envelope with
 * `error.data.error`; a success carries what was sent, exactly; a refused create wrote nothing; `/healthz`
 * answers 200 afterwards. Then slow clients (trickled headers and bodies) must not stop the API from serving.
 * Memory: the peak RSS of the process during the probes must stay within `rssRatioLimit` times its peak under a
 * short normal load (reads and creates) measured just before, in the same process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { ERROR_CODES, ErrorSchema, PetSchema, PetsSchema, parseJson } from '@petstore/schema';
import superjson from 'superjson';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess } from './api-process.js';
import { type Defect, hostileProbes, type Probe } from './hostile-probes.js';
import { type RawRequest, sendRaw } from './raw-http.js';
import {
  createPet,
  mapConcurrently,
  requestJson,
  type ScenarioDatabase,
  type ScenarioEnvironment,
  type ScenarioResult,
  sleep,
  withDatabase,
} from './scenario-support.js';

export interface ProbesOptions {
  database: ScenarioDatabase;
  /** Requests of the normal load (reads and creates, 8 at a time) whose peak RSS is the reference. */
  normalRequests: number;
  /** Largest accepted ratio: peak RSS during the probes / peak RSS under the normal load. */
  rssRatioLimit: number;
  /** Slow clients: this many connections trickle their headers, as many trickle a body... */
  slowConnections: number;
  /** ...for this long, while the API must keep answering others. */
  slowHoldMs: number;
  /** The probes to send; default: every probe of hostile-probes.ts (a test can pass altered ones). */
  probes?: (host: string, apiKey: string) => Probe[];
}

/** Generous enough that no probe is a 429, low enough that the limiter really runs on every request. */
const RATE_LIMIT_PER_MINUTE = 1_000_000;
const RESPONSE_TIMEOUT_MS = 10_000;

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

// Memory --------------------------------------------------------------------------------------------------------

/**
 * Peak resident memory of a process between two points: VmHWM after `clear_refs` reset it (Linux >= 4.0, same
 * user), which catches spikes between samples; sampled VmRSS (every 50 ms) as well, and as the fallback.
 */
export function memoryMeter(pid: number) {
  let sampled = 0;
  let resettable = true;
  const status = async () => {
    const text = await readFile(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  };
  const timer = setInterval(() => {
    status()
      .then(({ rss }) => {
        sampled = Math.max(sampled, rss);
      })
      .catch(() => {});
  }, 50);
  return {
    status,
    /** Starts a new measurement; returns the peak since the previous one (or since start). */
    async reset(): Promise<number> {
      const { rss, hwm } = await status();
      const peak = Math.max(sampled, rss, resettable ? hwm : 0);
      sampled = rss;
      try {
        await writeFile(`/proc/${pid}/clear_refs`, '5');
      } catch {
        resettable = false;
      }
      return peak;
    },
    method: () => (resettable ? 'VmHWM reset by clear_refs, and VmRSS sampled every 50 ms' : 'VmRSS sampled'),
    stop: () => clearInterval(timer),
  };
}

/** Reads and creates as a well-behaved client sends them, `concurrency` at a time. */
export async function normalLoad(baseUrl: string, requests: number): Promise<number> {
  let serverErrors = 0;
  let lastId = 1n;
  await mapConcurrently(
    Array.from({ length: requests }, (_, i) => i),
    8,
    async (i) => {
      let status: number;
      switch (i % 5) {
        case 0: {
          const { pet, reply } = await createPet(baseUrl, { name: `normal ${i} 🐾`, categoryId: BigInt(i) });
          if (pet) lastId = pet.id > lastId ? pet.id : lastId;
          status = reply.status;
          break;
        }
        case 1:
          status = (await requestJson(`${baseUrl}/pets/${lastId}`)).status;
          break;
        case 2:
          status = (
            await requestJson(
              `${baseUrl}/trpc/pets.list?input=${encodeURIComponent('{"json":{"limit":50}}')}`,
            )
          ).status;
          break;
        default:
          status = (await requestJson(`${baseUrl}/pets?limit=100`)).status;
      }
      if (status >= 500) serverErrors++;
    },
  );
  return serverErrors;
}

// Judging one answer --------------------------------------------------------------------------------------------

/** An answer as a probe sees it: status, headers, body text. */
interface ProbeAnswer {
  status: number;
  headers: Map<string, string[]>;
  text: string;
}

const isCreate = (request: RawRequest) =>
  request.method === 'POST' &&
  (request.target === '/v1/pets' || /^\/v1\/trpc\/pets\.create\b/.test(request.target));

/** The value inside a tRPC success `{ result: { data: <superjson> } }`. */
function trpcData(item: unknown): unknown {
  const data = (item as { result?: { data?: unknown } } | null)?.result?.data;
  if (data === undefined) throw new Error(`not a tRPC result: ${JSON.stringify(item)?.slice(0, 200)}`);
  return superjson.deserialize(data as never);
}

/** The Error inside a tRPC error envelope, or a message saying why there is none. */
function trpcError(item: unknown): { error?: unknown; problem?: string } {
  const raw = (item as { error?: unknown } | null)?.error;
  if (raw === undefined)
    return { problem: `no "error" in the tRPC answer: ${JSON.stringify(item)?.slice(0, 200)}` };
  try {
    return { error: superjson.deserialize<{ data?: { error?: unknown } }>(raw as never)?.data?.error };
  } catch {
    return { problem: `tRPC error is not superjson: ${JSON.stringify(raw).slice(0, 200)}` };
  }
}

function errorBodyProblem(value: unknown, status: number, code: string | undefined): string | undefined {
  const parsed = ErrorSchema.safeParse(value);
  if (!parsed.success) return `not an Error body: ${JSON.stringify(value)?.slice(0, 200)}`;
  if (parsed.data.status !== status) return `Error.status ${parsed.data.status} != HTTP ${status}`;
  const known = (ERROR_CODES as Record<string, number>)[parsed.data.code];
  if (known !== undefined && known !== status) return `code ${parsed.data.code} carries status ${status}`;
  if (code !== undefined && parsed.data.code !== code) return `code ${parsed.data.code}, expected ${code}`;
  return undefined;
}

/** Checks an answer against the probe; returns the problems (empty: pass) and how many pets it created. */
function judge(probe: Probe, answer: ProbeAnswer): { problems: string[]; created: number } {
  const { expect } = probe;
  const problems: string[] = [];
  const { status, headers, text } = answer;
  // A 5xx only where the probe expects it (the 501 of a method no resource here supports): never a fault.
  if (status >= 500 && status !== expect.status) problems.push(`5xx`);
  if (status !== expect.status) problems.push(`status ${status}, expected ${expect.status}`);
  if (expect.maxBytes !== undefined && Buffer.byteLength(text) > expect.maxBytes)
    problems.push(`${Buffer.byteLength(text)}-byte body, expected at most ${expect.maxBytes}`);
  if (expect.byNodeParser) {
    // The parser's answers carry a request id of their own kind (server-limits.ts rawResponse).
    if (!(headers.get('x-request-id')?.[0] ?? '').startsWith('parser-'))
      problems.push('answered by the app, expected the HTTP parser');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push(`body is not JSON: ${text.slice(0, 200)}`);
    }
    const problem = body === undefined ? undefined : errorBodyProblem(body, status, expect.code);
    if (problem) problems.push(problem);
    return { problems, created: 0 };
  }
  const requestId = headers.get('x-request-id')?.[0];
  if (requestId === undefined || requestId.startsWith('parser-'))
    problems.push('no X-Request-Id of the app: not answered by the app');
  if (probe.request.target.startsWith('/docs/') && status < 400) return { problems, created: 0 };
  if (!/^application\/json/.test(headers.get('content-type')?.[0] ?? ''))
    problems.push(`Content-Type ${headers.get('content-type')?.[0]}`);

  let json: unknown;
  try {
    json = probe.transport === 'rest' ? parseJson(text) : JSON.parse(text);
  } catch {
    problems.push(`body is not JSON: ${text.slice(0, 200)}`);
    return { problems, created: 0 };
  }

  if (status >= 400) {
    if (probe.transport === 'rest') {
      const problem = errorBodyProblem(json, status, expect.code);
      if (problem) problems.push(problem);
    } else {
      for (const item of Array.isArray(json) ? json : [json]) {
        const { error, problem } = trpcError(item);
        const found = problem ?? errorBodyProblem(error, status, expect.code);
        if (found) {
          problems.push(found);
          break;
        }
      }
    }
    return { problems, created: 0 };
  }

  // A success: decode it, count what it created, check what it carries.
  let values: unknown[];
  try {
    values =
      probe.transport === 'rest'
        ? [json]
        : Array.isArray(json)
          ? json.map((item) => trpcData(item))
          : [trpcData(json)];
  } catch (error) {
    problems.push((error as Error).message);
    return { problems, created: 0 };
  }
  const created = isCreate(probe.request)
    ? values.filter((value) => PetSchema.safeParse(value).success).length
    : 0;
  const check = probe.success;
  if (check?.kind === 'batch' && values.length !== check.calls)
    problems.push(`${values.length} results, expected ${check.calls}`);
  if (check?.kind === 'pets' && !PetsSchema.safeParse(values[0]).success)
    problems.push(`not a Pets array: ${text.slice(0, 200)}`);
  if (check?.kind === 'pet') {
    const pet = PetSchema.safeParse(values[0]);
    if (!pet.success) problems.push(`not a Pet: ${text.slice(0, 200)}`);
    else {
      if (check.name !== undefined && pet.data.name !== check.name)
        problems.push(`stored name ${JSON.stringify(pet.data.name.slice(0, 40))}…, not the one sent`);
      if (check.categoryId !== undefined && pet.data.categoryId !== check.categoryId)
        problems.push(`stored categoryId ${pet.data.categoryId}, expected ${check.categoryId}`);
    }
  }
  return { problems, created };
}

/** One line saying what the API answered, for a failure message. */
function describeAnswer(answer: ProbeAnswer): string {
  let shown = answer.text;
  try {
    const json = JSON.parse(answer.text) as unknown;
    const { error } = trpcError(Array.isArray(json) ? json[0] : json);
    if (error !== undefined) shown = JSON.stringify(error);
  } catch {}
  return `HTTP ${answer.status} ${shown.slice(0, 160)}`;
}

// Slow clients --------------------------------------------------------------------------------------------------

interface SlowResult {
  violations: string[];
  details: Record<string, unknown>;
}

/**
 * `count` connections trickle their headers one byte every 500 ms, `count` more send full headers of a create
 * and trickle its body; while they are held, `/healthz` and a list on new connections must answer 200 before
 * the server has cut any of them: an answer that came only once slow connections were gone (the server's
 * headers timeout, 10 s by default) waited for them. No duration is asserted, so a busy machine passes; a
 * server that starves passes only if it never cuts them, and then the (scaled) response timeout fails it.
 * Reports how many of the slow connections the server cut (or answered) during the hold.
 */
async function slowClients(api: ApiProcess, count: number, holdMs: number): Promise<SlowResult> {
  const host = `${api.host}:${api.port}`;
  const sockets: { socket: Socket; kind: 'headers' | 'body'; endedAt?: number; firstBytes?: string }[] = [];
  const open = (kind: 'headers' | 'body') =>
    new Promise<void>((resolve) => {
      const socket = connect({ host: api.host, port: api.port });
      const entry: (typeof sockets)[number] = { socket, kind };
      sockets.push(entry);
      socket.on('data', (chunk: Buffer) => {
        entry.firstBytes ??= chunk.toString('latin1').split('\r\n')[0];
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        entry.endedAt ??= Date.now();
      });
      socket.on('connect', () => {
        socket.write(
          kind === 'headers'
            ? `GET /v1/pets HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `
            : `POST /v1/pets HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${RELIABILITY_API_KEY}\r\n` +
                'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"',
        );
        resolve();
      });
    });
  const started = Date.now();
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, () => [open('headers'), open('body')]).flat(),
    );
  }
  const trickle = setInterval(() => {
    for (const { socket, endedAt } of sockets)
      if (endedAt === undefined && !socket.destroyed) socket.write('a');
  }, 500);

  const violations: string[] = [];
  const timings: number[] = [];
  const checkService = async (when: string) => {
    for (const target of ['/healthz', '/v1/pets?limit=1']) {
      const at = Date.now();
      const outcome = await sendRaw(
        api.host,
        api.port,
        {
          method: 'GET',
          target,
          headers: [
            ['Host', host],
            ['Authorization', `Bearer ${RELIABILITY_API_KEY}`],
          ],
        },
        scaled(RESPONSE_TIMEOUT_MS),
      );
      const answeredAt = Date.now();
      const ms = answeredAt - at;
      timings.push(ms);
      const status = outcome.kind === 'response' ? outcome.response.status : outcome.kind;
      const cutBefore = sockets.filter(
        ({ endedAt }) => endedAt !== undefined && endedAt <= answeredAt,
      ).length;
      if (status !== 200)
        violations.push(`slow clients: GET ${target} ${when} answered ${status} after ${ms} ms`);
      else if (cutBefore > 0)
        violations.push(
          `slow clients: GET ${target} ${when} answered only after ${cutBefore} slow connection(s) were cut (${ms} ms)`,
        );
    }
  };
  await checkService(`with ${count * 2} slow connections open`);
  await sleep(Math.max(0, holdMs - (Date.now() - started)));
  await checkService(`after ${holdMs} ms of slow connections`);
  clearInterval(trickle);

  const cut = (kind: 'headers' | 'body') => sockets.filter((s) => s.kind === kind && s.endedAt !== undefined);
  const answers = [...new Set(sockets.map((s) => s.firstBytes).filter((line) => line !== undefined))];
  if (answers.some((line) => / 5\d\d /.test(line ?? '')))
    violations.push(`slow clients were answered ${answers}`);
  for (const { socket } of sockets) socket.destroy();
  return {
    violations,
    details: {
      connections: sockets.length,
      heldMs: Date.now() - started,
      cutByServer: { headers: cut('headers').length, body: cut('body').length },
      answersToSlowClients: answers,
      otherClientsAnsweredWithinMs: Math.max(...timings),
    },
  };
}

// The scenario --------------------------------------------------------------------------------------------------

export async function runProbesScenario(
  env: ScenarioEnvironment,
  options: ProbesOptions,
): Promise<ScenarioResult> {
  return withDatabase(env, options.database, 'probes', async (target) => {
    const startedAt = Date.now();
    const api = await startApiProcess({
      ...target,
      env: { LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) },
    });
    const meter = memoryMeter(api.pid);
    try {
      const host = `${api.host}:${api.port}`;
      const violations: string[] = [];
      const started = Date.now();
      const phases: Record<string, number> = { startMs: started - startedAt };

      // The reference: a short normal load, after a warm-up; its peak is measured from a reset.
      const startupPeak = await meter.reset();
      await normalLoad(api.baseUrl, 50);
      await meter.reset();
      const normalErrors = await normalLoad(api.baseUrl, options.normalRequests);
      const normalPeak = await meter.reset();
      if (normalErrors > 0) violations.push(`normal load: ${normalErrors} answers were 5xx`);

      // Write accounting: ids are consecutive, so a marker pet after a create probe shows what it wrote.
      const marker = async () => {
        const { pet, reply } = await createPet(api.baseUrl, { name: 'marker', categoryId: 0n });
        if (pet === undefined) throw new Error(`marker create answered ${reply.status}: ${reply.text}`);
        return pet.id;
      };
      phases.normalLoadMs = Date.now() - started;
      let lastId = await marker();

      const probes = (options.probes ?? hostileProbes)(host, RELIABILITY_API_KEY);
      const byDefect = new Map<Defect, { sent: number; failed: number }>();
      const failed: string[] = [];
      let serverErrors = 0;
      let healthFailures = 0;
      let sent = 0;
      for (const probe of probes) {
        sent++;
        const tally = byDefect.get(probe.defect) ?? { sent: 0, failed: 0 };
        tally.sent++;
        byDefect.set(probe.defect, tally);
        const outcome = await sendRaw(api.host, api.port, probe.request, scaled(RESPONSE_TIMEOUT_MS));
        const problems: string[] = [];
        let created = 0;
        let actual: string;
        if (outcome.kind !== 'response') {
          problems.push(
            outcome.kind === 'timeout' ? 'no answer' : `connection closed (${outcome.error ?? 'EOF'})`,
          );
          actual = outcome.kind;
        } else {
          const answer: ProbeAnswer = {
            status: outcome.response.status,
            headers: outcome.response.headers,
            text: outcome.response.body.toString('utf8'),
          };
          if (answer.status >= 500 && answer.status !== probe.expect.status) serverErrors++;
          const verdict = judge(probe, answer);
          problems.push(...verdict.problems);
          created = verdict.created;
          actual = describeAnswer(answer);
        }
        if (isCreate(probe.request)) {
          const next = await marker();
          const unacknowledged = Number(next - lastId - 1n) - created;
          if (unacknowledged !== 0)
            problems.push(`${unacknowledged} pet id(s) used beyond the ${created} the answer acknowledged`);
          lastId = next;
        }
        const health = await sendRaw(api.host, api.port, {
          method: 'GET',
          target: '/healthz',
          headers: [['Host', host]],
        });
        if (health.kind !== 'response' || health.response.status !== 200) {
          healthFailures++;
          problems.push(
            `/healthz then answered ${health.kind === 'response' ? health.response.status : health.kind}`,
          );
        }
        if (problems.length > 0) {
          tally.failed++;
          const expected = `${probe.expect.status}${probe.expect.code ? ` ${probe.expect.code}` : ''}`;
          failed.push(
            `[${probe.defect}] ${probe.name}: expected ${expected}; ${problems.join('; ')}; got ${actual}`,
          );
        }
        if (api.child.exitCode !== null || api.child.signalCode !== null) {
          violations.push(`the api process died after probe "${probe.name}": ${api.output().slice(-2000)}`);
          break;
        }
      }
      violations.push(...failed);
      phases.probesMs = Date.now() - started - (phases.normalLoadMs ?? 0);

      const slow = await slowClients(api, options.slowConnections, options.slowHoldMs);
      sent += 2;
      violations.push(...slow.violations);

      const probePeak = await meter.reset();
      const ratio = probePeak / normalPeak;
      if (ratio > options.rssRatioLimit) {
        violations.push(
          `peak RSS during the probes ${mib(probePeak)} is ${ratio.toFixed(2)}x the normal-load peak ${mib(normalPeak)} (limit ${options.rssRatioLimit}x)`,
        );
      }

      return {
        scenario: 'hostile probes',
        database: options.database,
        requestsSent: sent,
        faultsInjected: sent,
        serverErrors,
        acknowledgedWritesLost: undefined,
        recoveryMs: undefined,
        memory: { peakBytes: probePeak, normalPeakBytes: normalPeak },
        details: {
          elapsedMs: Date.now() - started,
          phases,
          probes: probes.length,
          failedProbes: failed.length,
          healthzFailures: healthFailures,
          byDefect: Object.fromEntries(
            [...byDefect].map(([defect, { sent: n, failed: f }]) => [defect, `${n - f}/${n} pass`]),
          ),
          rss: {
            startupPeak: mib(startupPeak),
            normalPeak: mib(normalPeak),
            probePeak: mib(probePeak),
            ratio: Number(ratio.toFixed(2)),
            normalRequests: options.normalRequests,
            method: meter.method(),
          },
          slowClients: slow.details,
        },
        violations,
      };
    } finally {
      meter.stop();
      await api.kill();
    }
  });
}
