/**
 * Database fault: the API reaches PostgreSQL through a TCP proxy that the scenario cuts (every connection
 * destroyed, new ones refused) and later restores. While it is cut, every route that needs the database
 * answers 503 `service_unavailable` with `Retry-After`, quickly; `/healthz` stays 200 and `/readyz` is 503.
 * After the restore the API recovers by itself; the time to the first good answer is the recovery time.
 * Writes acknowledged before the outage are intact afterwards.
 */
import type { Pet } from '@petstore/schema';
import { ErrorSchema } from '@petstore/schema';
import { startApiProcess } from './api-process.js';
import {
  createPet,
  createRandom,
  type JsonReply,
  requestJson,
  type ScenarioEnvironment,
  type ScenarioResult,
  samplePet,
  sleep,
  verifyPet,
  withPostgresDatabase,
  withTempDir,
} from './scenario-support.js';
import { startTcpProxy } from './tcp-proxy.js';

export interface DatabaseFaultOptions {
  seed: number;
  /** `cut`: connections destroyed and refused; `partition`: connections open, nothing gets through. */
  fault: 'cut' | 'partition';
  /** Outages in a row (cut, probe, restore, recover). */
  outages: number;
  /** How long each outage lasts, probing all along (ms). */
  outageMs: number;
  /** The slowest acceptable answer while the database is away (ms): fast failure, not a hang. */
  maxAnswerMs: number;
  /** How long recovery may take after the restore before the scenario gives up (ms). */
  recoveryLimitMs: number;
}

interface Probe {
  label: string;
  run: (baseUrl: string, signal: AbortSignal) => Promise<JsonReply>;
}

const PROBES: Probe[] = [
  { label: 'GET /v1/pets', run: (baseUrl, signal) => requestJson(`${baseUrl}/pets?limit=5`, { signal }) },
  { label: 'GET /v1/pets/1', run: (baseUrl, signal) => requestJson(`${baseUrl}/pets/1`, { signal }) },
  {
    label: 'POST /v1/pets',
    run: (baseUrl, signal) =>
      requestJson(`${baseUrl}/pets`, { method: 'POST', body: '{"name":"outage","categoryId":1}', signal }),
  },
  {
    label: 'tRPC pets.list',
    run: (baseUrl, signal) =>
      requestJson(`${baseUrl}/trpc/pets.list?input=${encodeURIComponent('{"json":{}}')}`, { signal }),
  },
];

/** The Error of a REST or tRPC reply, if it carries one. */
function errorOf(reply: JsonReply): { code: string; status: number } | undefined {
  const direct = ErrorSchema.safeParse(reply.body);
  if (direct.success) return direct.data;
  const nested = (reply.body as { error?: { json?: { data?: { error?: unknown } } } } | undefined)?.error
    ?.json?.data?.error;
  const parsed = ErrorSchema.safeParse(nested);
  return parsed.success ? parsed.data : undefined;
}

export async function runDatabaseFaultScenario(
  env: ScenarioEnvironment,
  options: DatabaseFaultOptions,
): Promise<ScenarioResult> {
  const random = createRandom(options.seed);
  return withTempDir('petstore-dbfault-', (dataDir) =>
    withPostgresDatabase(env, 'db_fault', async (database) => {
      const target = new URL(database.url);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const proxied = new URL(database.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      const api = await startApiProcess({ databaseUrl: proxied.toString(), dataDir });
      const root = api.baseUrl.replace(/\/v1$/, '');
      const violations: string[] = [];
      const problems = new Map<string, number>();
      const note = (problem: string) => problems.set(problem, (problems.get(problem) ?? 0) + 1);
      let requestsSent = 0;
      let serverErrors = 0;
      let answered503 = 0;
      let slowestMs = 0;
      const recoveries: number[] = [];
      // A client that waited this long has given up: the answer is counted as missing, the run goes on.
      const giveUp = () => AbortSignal.timeout(options.maxAnswerMs + 2_000);
      const acknowledged: Pet[] = [];
      try {
        for (let i = 0; i < 20; i++) {
          requestsSent++;
          const { pet } = await createPet(api.baseUrl, samplePet(random, `before outage ${i}`));
          if (pet) acknowledged.push(pet);
        }

        for (let outage = 0; outage < options.outages; outage++) {
          if (options.fault === 'cut') await proxy.cut();
          else proxy.partition();
          const cutAt = Date.now();
          while (Date.now() - cutAt < options.outageMs) {
            for (const probe of PROBES) {
              requestsSent++;
              const started = Date.now();
              const reply = await probe.run(api.baseUrl, giveUp()).catch((error: Error) => error);
              const took = Date.now() - started;
              slowestMs = Math.max(slowestMs, took);
              if (reply instanceof Error) {
                note(`${probe.label}: no answer (${reply.message})`);
                continue;
              }
              if (took > options.maxAnswerMs)
                note(`${probe.label}: answered after more than ${options.maxAnswerMs} ms`);
              const error = errorOf(reply);
              if (reply.status === 503) answered503++;
              else if (reply.status >= 500) serverErrors++;
              if (reply.status !== 503 || error?.code !== 'service_unavailable' || error.status !== 503) {
                note(
                  `${probe.label}: expected 503 service_unavailable, got ${reply.status} ${reply.text.slice(0, 120)}`,
                );
              } else if (!/^\d+$/.test(reply.headers.get('retry-after') ?? '')) {
                note(`${probe.label}: 503 without a Retry-After in seconds`);
              }
            }
            requestsSent += 2;
            const health = await fetch(`${root}/healthz`, { signal: giveUp() }).catch(() => undefined);
            if (health?.status !== 200)
              note(`/healthz answered ${health?.status ?? 'nothing'} during the outage`);
            const ready = await fetch(`${root}/readyz`, { signal: giveUp() }).catch(() => undefined);
            await ready?.text().catch(() => {});
            if (ready?.status !== 503)
              note(`/readyz answered ${ready?.status ?? 'nothing'} during the outage`);
          }
          if (api.child.exitCode !== null || api.child.signalCode !== null) {
            violations.push(`the api process died during the outage: ${api.output().slice(-2000)}`);
            break;
          }

          await proxy.restore();
          const restoredAt = Date.now();
          let recoveredMs: number | undefined;
          while (Date.now() - restoredAt < options.recoveryLimitMs) {
            requestsSent++;
            const reply = await requestJson(`${api.baseUrl}/pets?limit=1`).catch(() => undefined);
            const ready =
              reply?.status === 200 ? await fetch(`${root}/readyz`).catch(() => undefined) : undefined;
            if (reply?.status === 200 && ready?.status === 200) {
              recoveredMs = Date.now() - restoredAt;
              break;
            }
            await sleep(50);
          }
          if (recoveredMs === undefined) {
            violations.push(
              `outage ${outage + 1}: not recovered ${options.recoveryLimitMs} ms after the database returned`,
            );
            break;
          }
          recoveries.push(recoveredMs);
          requestsSent++;
          const { pet, reply } = await createPet(api.baseUrl, samplePet(random, `after outage ${outage}`));
          if (pet) acknowledged.push(pet);
          else violations.push(`outage ${outage + 1}: a create after recovery answered ${reply.status}`);
        }

        let lost = 0;
        for (const pet of acknowledged) {
          requestsSent++;
          const problem = await verifyPet(api.baseUrl, pet);
          if (problem !== undefined) {
            lost++;
            violations.push(problem);
          }
        }
        for (const [problem, count] of problems) violations.push(`${problem} (x${count})`);

        return {
          scenario:
            options.fault === 'cut' ? 'database unreachable (refused)' : 'database partition (silent)',
          database: 'postgresql' as const,
          requestsSent,
          faultsInjected: options.outages,
          serverErrors,
          acknowledgedWritesLost: lost,
          recoveryMs: recoveries.length > 0 ? Math.max(...recoveries) : undefined,
          details: { answered503, slowestAnswerMs: slowestMs, recoveriesMs: recoveries },
          violations,
        };
      } finally {
        await api.kill();
        await proxy.close();
      }
    }),
  );
}
