/**
 * MCP behind a real load balancer (issue 37): HAProxy (round robin, no stickiness) in front of three API processes
 * on one PostgreSQL database, and the official MCP client (`@modelcontextprotocol/client`) through it in both
 * protocol eras the api serves: pinned to 2026-07-28, and the 2025 `initialize` handshake. Rows of
 * `pnpm scale-test`:
 * 1. spread, once per era: one client connects and makes tool calls (listPets, createPet); every instance
 *    answers some of that one client's requests (each instance's own count of MCP requests,
 *    `petstore_http_requests_total{transport="mcp"}` on its metrics port), and no session id is ever given, so
 *    nothing ties a client to an instance;
 * 2. SIGKILL under MCP load: client loops (half per era) create pets one after the other, each with an
 *    `idempotencyKey`; one instance is killed, a replacement on its port joins. A call that fails (in flight on
 *    the killed instance: HAProxy answers 502, or closes the connection when the answer had begun) is retried
 *    with the same key until it is answered. Every create whose tool result a client received is stored exactly
 *    once (SQL), none is stored twice, and the replacement answers calls of clients that connected before it
 *    existed.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { scaled } from '../../../../tooling/vitest.shared.js';
import { findFreePort } from '../support/postgres-server.js';
import { type ApiProcess, RELIABILITY_API_KEY, startApiProcess, startApiProcesses } from './api-process.js';
import { ensureHaproxy, type LoadBalancer, startHaproxy } from './haproxy.js';
import {
  checkCreates,
  type LoadBalancerReport,
  type LoadBalancerRow,
  type LoadOutcome,
  waitFor,
} from './load-balancer.scenario.js';
import { type ScenarioEnvironment, sleep, withPostgresDatabase, withTempDir } from './scenario-support.js';

export interface McpScenarioOptions {
  /** Tool calls of the one client of each era in the spread row. */
  spreadCalls: number;
  /** Client loops creating pets during the kill, half in each era. */
  loops: number;
  /** Load before the kill, and after the replacement is UP. */
  loadBeforeMs: number;
  loadAfterMs: number;
}

type Era = 'modern' | 'legacy';
const ERAS: readonly Era[] = ['modern', 'legacy'];
const VERSION: Record<Era, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** How long one tool call may take, and how long a create may keep being retried, on a busy machine. */
const CALL_TIMEOUT_MS = scaled(15_000);
const RETRY_DEADLINE_MS = scaled(60_000);

/** The official client connected through the balancer, in one era; no session: each request stands alone. */
async function connect(lb: LoadBalancer, era: Era) {
  const client = new Client(
    { name: 'petstore-scale-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: VERSION.modern } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${lb.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${RELIABILITY_API_KEY}` } },
  });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  const callTool = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS })) as unknown as ToolAnswer;
  return { client, transport, callTool };
}

/** MCP requests each instance answered with a 2xx, by its metrics port (its own count, not the balancer's). */
async function mcpAnswered(metricsPorts: readonly number[]): Promise<number[]> {
  return Promise.all(
    metricsPorts.map(async (port) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      let count = 0;
      for (const match of text.matchAll(/^petstore_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
        const labels = match[1] ?? '';
        if (labels.includes('transport="mcp"') && labels.includes('status_class="2xx"'))
          count += Number(match[2]);
      }
      return count;
    }),
  );
}

/** A failed call in a few words: the error, and what fetch saw underneath (`UND_ERR_SOCKET: other side closed`). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  const under = cause === undefined ? '' : ` (${[cause.code, cause.message].filter(Boolean).join(': ')})`;
  return `${error.message}${under}`.slice(0, 200);
}

export async function runMcpScenario(
  env: ScenarioEnvironment,
  options: McpScenarioOptions,
): Promise<LoadBalancerReport> {
  const log = env.log ?? (() => {});
  // Before anything starts: without HAProxy the scenario cannot run, and says how to install it.
  const haproxy = ensureHaproxy();
  return withTempDir('petstore-mcp-lb-', (dataDir) =>
    withPostgresDatabase(env, 'mcp_balancer', async (database) => {
      const rows: LoadBalancerRow[] = [];
      const violations: string[] = [];
      const start = (metricsPort: number, port?: number) =>
        startApiProcess({
          databaseUrl: database.url,
          dataDir,
          env: { METRICS_PORT: String(metricsPort), ...(port === undefined ? {} : { PORT: String(port) }) },
        });
      // Everything started is in these lists before the next step, and stopped (clients closed) by the `finally`.
      const apis: ApiProcess[] = [];
      const balancers: LoadBalancer[] = [];
      const clients: Client[] = [];
      let totalRequests = 0;
      let serverErrors = 0;
      let lostWrites = 0;
      try {
        const metricsPorts = [await findFreePort(), await findFreePort(), await findFreePort()];
        // The first migrates; the others start on the migrated database.
        apis.push(await start(metricsPorts[0] as number));
        apis.push(
          ...(await startApiProcesses(metricsPorts.slice(1).map((metricsPort) => () => start(metricsPort)))),
        );
        const backends = apis.map((api, index) => ({ name: `api${index + 1}`, port: api.port }));
        const lb = await startHaproxy({ backends, binary: haproxy });
        balancers.push(lb);
        await lb.waitUntilUp();
        log(`HAProxy on ${lb.baseUrl} in front of ${backends.map((backend) => backend.port).join(', ')}`);

        // 1. One client per era: its calls land on every instance, and it holds no session.
        for (const era of ERAS) {
          const before = await mcpAnswered(metricsPorts);
          const { client, transport, callTool } = await connect(lb, era);
          clients.push(client);
          const problems: string[] = [];
          if (client.getNegotiatedProtocolVersion() !== VERSION[era])
            problems.push(
              `${era}: negotiated ${client.getNegotiatedProtocolVersion()}, not ${VERSION[era]} through HAProxy`,
            );
          let failed = 0;
          for (let call = 0; call < options.spreadCalls; call++) {
            try {
              const answer =
                call % 2 === 0
                  ? await callTool('listPets', { limit: 20 })
                  : await callTool('createPet', { name: `spread ${era} ${call}`, categoryId: call });
              if (answer.isError) throw new Error(JSON.stringify(answer.structuredContent));
            } catch (error) {
              failed++;
              if (failed <= 3) problems.push(`${era}: a tool call failed: ${describeError(error)}`);
            }
          }
          if (transport.sessionId !== undefined)
            problems.push(
              `${era}: the server gave a session id (${transport.sessionId}): calls are tied to it`,
            );
          const after = await mcpAnswered(metricsPorts);
          await client.close();
          const served = after.map((count, index) => count - (before[index] ?? 0));
          const requests = served.reduce((sum, count) => sum + count, 0);
          if (served.some((count) => count === 0))
            problems.push(
              `${era}: an instance answered none of one client's MCP requests (${served.join('/')})`,
            );
          totalRequests += requests;
          violations.push(...problems);
          rows.push({
            step: `MCP spread, ${era} client (${VERSION[era]})`,
            requests,
            failed,
            detail:
              `one client, ${options.spreadCalls} tool calls: MCP requests answered per instance ${served.join(' / ')}, ` +
              `session id ${transport.sessionId ?? 'none'}`,
            ok: problems.length === 0,
          });
          log(rows.at(-1)?.detail ?? '');
        }

        // 2. SIGKILL under MCP creates; a failed call retried with its idempotency key.
        {
          const victimIndex = 1;
          const victim = apis[victimIndex] as ApiProcess;
          const name = 'api2';
          const label = 'mcp-kill';
          const acknowledged: LoadOutcome['acknowledged'] = [];
          const failures: { atMs: number; what: string }[] = [];
          const problems: string[] = [];
          let attempts = 0;
          let retriedCreates = 0;
          let stopping = false;
          const startedAt = Date.now();
          const connected = await Promise.all(
            Array.from({ length: options.loops }, (_, index) => connect(lb, ERAS[index % 2] as Era)),
          );
          clients.push(...connected.map((each) => each.client));
          const loop = async (index: number) => {
            const { callTool } = connected[index] as (typeof connected)[number];
            for (let i = 0; !stopping; i++) {
              const args = {
                name: `${label} ${index}.${i}`,
                categoryId: index + 1,
                idempotencyKey: `${label}-${index}-${i}`,
              };
              const deadline = Date.now() + RETRY_DEADLINE_MS;
              for (let attempt = 0; ; attempt++) {
                if (attempt === 1) retriedCreates++;
                attempts++;
                let what: string;
                try {
                  const answer = await callTool('createPet', args);
                  const pet = answer.structuredContent as
                    | { id?: string; name?: string; status?: number }
                    | undefined;
                  if (!answer.isError && typeof pet?.id === 'string') {
                    acknowledged.push({ id: pet.id, name: String(pet.name) });
                    break;
                  }
                  // The contract's Error body: a 5xx may be retried, anything else is a verdict on the call.
                  what = `tool error ${JSON.stringify(pet).slice(0, 200)}`;
                  if (typeof pet?.status === 'number' && pet.status >= 500) serverErrors++;
                  else {
                    problems.push(`create ${args.idempotencyKey}: ${what}`);
                    break;
                  }
                } catch (error) {
                  what = describeError(error);
                }
                failures.push({ atMs: Date.now() - startedAt, what });
                if (Date.now() > deadline) {
                  problems.push(
                    `create ${args.idempotencyKey}: not answered within ${RETRY_DEADLINE_MS} ms: ${what}`,
                  );
                  break;
                }
                await sleep(50);
              }
            }
          };
          const loops = Array.from({ length: options.loops }, (_, index) => loop(index));
          let killedAtMs = 0;
          let downAfterMs = 0;
          let joinedAfterMs = 0;
          let replacementServed = 0;
          try {
            await sleep(options.loadBeforeMs);
            killedAtMs = Date.now() - startedAt;
            victim.child.kill('SIGKILL');
            await victim.exited;
            downAfterMs = await waitFor(
              async () => (await lb.stats()).get(name)?.status.startsWith('DOWN') ?? false,
              scaled(10_000),
              `${name} marked DOWN after SIGKILL`,
            );
            const replacementStarted = Date.now();
            apis[victimIndex] = await start(metricsPorts[victimIndex] as number, victim.port);
            await lb.waitUntilUp([name]);
            joinedAfterMs = Date.now() - replacementStarted;
            await sleep(options.loadAfterMs);
            replacementServed = (await mcpAnswered([metricsPorts[victimIndex] as number]))[0] ?? 0;
          } finally {
            stopping = true;
            await Promise.all(loops);
          }
          totalRequests += attempts;
          const { lost, duplicates } = await checkCreates(database.url, label, acknowledged);
          lostWrites += lost;
          // Only what was in flight on the killed instance fails: at most one call per loop, and not before the kill.
          const early = failures.filter((failure) => failure.atMs < killedAtMs);
          serverErrors += early.length;
          problems.push(
            ...(failures.length > options.loops
              ? [
                  `SIGKILL: ${failures.length} calls failed, more than the ${options.loops} that can be in flight`,
                ]
              : []),
            ...early
              .slice(0, 5)
              .map(
                (failure) =>
                  `SIGKILL: a call failed (${failure.what}) at ${failure.atMs} ms, before the kill at ${killedAtMs} ms`,
              ),
            ...(acknowledged.length === 0 ? ['SIGKILL: no create was acknowledged'] : []),
            ...(lost > 0 ? [`SIGKILL: ${lost} acknowledged creates lost`] : []),
            ...(duplicates > 0 ? [`SIGKILL: ${duplicates} creates stored twice or ids given twice`] : []),
            ...(replacementServed === 0 ? ['SIGKILL: the replacement instance answered no MCP request'] : []),
          );
          violations.push(...problems);
          const kinds = [...new Set(failures.map((failure) => failure.what))].join(', ');
          rows.push({
            step: 'SIGKILL one of 3 under MCP creates',
            requests: attempts,
            failed: failures.length,
            detail:
              `${options.loops} clients (half per era), createPet with idempotencyKey: ${failures.length} calls failed (${kinds || 'none'}), ` +
              `${retriedCreates} creates retried with their key; DOWN after ${downAfterMs} ms; ` +
              `${acknowledged.length} creates acked, ${lost} lost, ${duplicates} stored twice; ` +
              `replacement UP ${joinedAfterMs} ms after start, answered ${replacementServed} MCP requests`,
            ok: problems.length === 0,
          });
          log(rows.at(-1)?.detail ?? '');
        }

        return {
          rows,
          violations,
          result: {
            scenario: 'MCP behind HAProxy (3 instances)',
            database: 'postgresql' as const,
            requestsSent: totalRequests,
            faultsInjected: 1,
            serverErrors,
            acknowledgedWritesLost: lostWrites,
            recoveryMs: undefined,
            details: Object.fromEntries(rows.map((row) => [row.step, row.detail])),
            violations,
          },
        };
      } finally {
        await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
        await Promise.all(balancers.map((balancer) => balancer.stop()));
        await Promise.all(apis.map((api) => api.kill()));
      }
    }),
  );
}
