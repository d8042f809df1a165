/**
 * HAProxy from the system's packages (scripts/ensure-haproxy.sh installs it in CI) as the load balancer in front
 * of API processes: a config file written to a temp directory, 127.0.0.1 ports only, health checks on /readyz,
 * stopped by its PID. No vitest import: `pnpm scale-test` uses this too.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scaled, timeouts } from '../../../../tooling/vitest.shared.js';
import { findFreePort } from '../support/postgres-server.js';
import { makeTempDir, removeTempDir, spawnOwned, stopProcess } from '../support/run-registry.js';
import { sleep } from './scenario-support.js';
import { ensureSystemTool, type SystemTool } from './system-tool.js';

const HAPROXY: SystemTool = {
  name: 'HAProxy',
  packageName: 'haproxy',
  pathVariable: 'HAPROXY_PATH',
  candidates: ['haproxy', '/usr/sbin/haproxy'],
  versionArgs: ['-v'],
  script: 'ensure-haproxy.sh',
  neededBy: 'the load-balancer scale-out test',
};

/** The haproxy binary, installed by scripts/ensure-haproxy.sh where it can be (./system-tool.ts). */
export const ensureHaproxy = (): string => ensureSystemTool(HAPROXY);

export interface Backend {
  /** The server's name in HAProxy's config and statistics. */
  name: string;
  port: number;
}

/** One backend server as HAProxy's statistics page reports it. */
export interface BackendStats {
  /** `UP`, `DOWN`, `UP 1/2` (rising), `DOWN 1/2`, `MAINT`... */
  status: string;
  /** Requests sent to it (HTTP responses it gave, all classes). */
  responses: number;
  responses5xx: number;
  /** Connection attempts retried, and requests sent to another server after a failed connection. */
  retries: number;
  redispatches: number;
}

export interface LoadBalancer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  port: number;
  child: ChildProcess;
  stats(): Promise<Map<string, BackendStats>>;
  /** Resolves once every named backend (all by default) is UP. */
  waitUntilUp(names?: readonly string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface LoadBalancerOptions {
  backends: readonly Backend[];
  /** Health-check interval; a server is DOWN after 2 failed checks, UP after 2 good ones. */
  checkIntervalMs?: number;
  /** The haproxy binary, when the caller found it already (ensureHaproxy). */
  binary?: string;
  /**
   * Adds `X-Served-By: <backend name>` to every answer, so a client can tell which instance served it (the change
   * feed's failover scenario kills the instance its subscriber is on).
   */
  servedByHeader?: boolean;
  /**
   * `option http-no-delay`: each chunk of an answer is sent on at once. Without it HAProxy holds back the small writes
   * of a stream (MSG_MORE, then Nagle against the client's delayed ACK): the change feed measured p50 79 ms from a
   * create's answer to its event through HAProxy, and under 1 ms with it (docs/operations.md#the-change-feed).
   */
  httpNoDelay?: boolean;
}

/** The response header `servedByHeader` adds. */
export const SERVED_BY_HEADER = 'x-served-by';

/**
 * The configuration a production set-up would start from: round robin, keep-alive both sides, `/readyz`
 * checked every `checkIntervalMs`, a failed connection retried on another server (`option redispatch`), never
 * a request that reached a server (a create must not run twice).
 */
function haproxyConfig(port: number, statsPort: number, options: LoadBalancerOptions): string {
  const inter = options.checkIntervalMs ?? 300;
  return `global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive 10s
  retries 3
  option redispatch 1

frontend api
  bind 127.0.0.1:${port}
  default_backend apis

backend apis
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter ${inter} fall 2 rise 2
${options.httpNoDelay === true ? '  option http-no-delay\n' : ''}${options.servedByHeader === true ? `  http-response set-header ${SERVED_BY_HEADER} %s\n` : ''}${options.backends.map((backend) => `  server ${backend.name} 127.0.0.1:${backend.port} check`).join('\n')}

frontend stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
`;
}

export async function startHaproxy(options: LoadBalancerOptions): Promise<LoadBalancer> {
  const binary = options.binary ?? ensureHaproxy();
  const dir = await makeTempDir('petstore-haproxy-');
  const [port, statsPort] = [await findFreePort(), await findFreePort()];
  const configFile = join(dir, 'haproxy.cfg');
  await writeFile(configFile, haproxyConfig(port, statsPort, options));
  // -db: stay in the foreground, no daemon; -W is not needed for one process.
  const child = spawnOwned(binary, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16 * 1024);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16 * 1024);
  });

  const stats = async (): Promise<Map<string, BackendStats>> => {
    const text = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const [header, ...lines] = text.trim().split('\n');
    const columns = (header ?? '').replace(/^# /, '').split(',');
    const at = (name: string) => columns.indexOf(name);
    const result = new Map<string, BackendStats>();
    for (const line of lines) {
      const cells = line.split(',');
      if (cells[at('pxname')] !== 'apis' || cells[at('svname')] === 'BACKEND') continue;
      const number = (name: string) => Number(cells[at(name)] || 0);
      result.set(cells[at('svname')] as string, {
        status: cells[at('status')] ?? '',
        responses:
          number('hrsp_1xx') +
          number('hrsp_2xx') +
          number('hrsp_3xx') +
          number('hrsp_4xx') +
          number('hrsp_5xx'),
        responses5xx: number('hrsp_5xx'),
        retries: number('wretr'),
        redispatches: number('wredis'),
      });
    }
    return result;
  };

  const waitUntilUp = async (
    names = options.backends.map((backend) => backend.name),
    // The budget of a test that starts API processes: each backend is UP after two good /readyz checks, and on a
    // loaded machine (load 9-11, issue 39) processes that answer their first checks slowly took more than 30 s.
    timeoutMs = timeouts.process,
  ) => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${output}`);
      try {
        const current = await stats();
        last = JSON.stringify([...current]);
        if (names.every((name) => current.get(name)?.status === 'UP')) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`backends ${names.join(', ')} not all UP within ${timeoutMs} ms: ${last}\n${output}`);
  };

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    child,
    stats,
    waitUntilUp,
    async stop() {
      await stopProcess(child, scaled(5_000));
      await removeTempDir(dir);
    },
  };
}
