import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/database.js';
import type { OperationLabel } from './operation-label.js';

// Prometheus metrics through prom-client's own API (docs/operations.md#metrics).

/** Upper bounds in seconds: this API answers in about a millisecond; a slow database shows from 25 ms up. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Methods named in the labels; any other is `other`, so a client cannot grow the label set. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const LABEL_NAMES = ['operation', 'transport', 'method', 'status_class'] as const;

const statusClass = (status: number) => (status >= 100 && status < 600 ? `${(status / 100) | 0}xx` : 'other');

export interface Metrics {
  registry: Registry;
  /** Records one finished request. */
  observe(label: OperationLabel, method: string, status: number, seconds: number): void;
}

export interface MetricsOptions {
  /** The PostgreSQL pool's figures; absent on PGlite, which has no pool (one in-process connection). */
  poolStats?: (() => PoolStats) | undefined;
  /** Reads by route (db/read-replicas.ts), when DATABASE_READ_URL lists replicas. */
  readRoutes?: (() => ReadonlyMap<string, number>) | undefined;
}

export function createMetrics({ poolStats, readRoutes }: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  // Node's own: event-loop lag, heap, GC, CPU, handles.
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'petstore_http_requests_total',
    help: 'HTTP requests answered, by operation, transport, method and status class',
    labelNames: LABEL_NAMES,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'petstore_http_request_duration_seconds',
    help: 'Time from the request reaching Express to the response finishing, by operation, transport, method and status class',
    labelNames: LABEL_NAMES,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  if (poolStats !== undefined) {
    new Gauge({
      name: 'petstore_db_pool_connections',
      help: 'PostgreSQL pool connections of this process, by state (in_use, idle)',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const stats = poolStats();
        this.set({ state: 'in_use' }, stats.total - stats.idle);
        this.set({ state: 'idle' }, stats.idle);
      },
    });
    new Gauge({
      name: 'petstore_db_pool_waiting',
      help: 'Queries waiting for a PostgreSQL pool connection in this process',
      registers: [registry],
      collect() {
        this.set(poolStats().waiting);
      },
    });
    new Gauge({
      name: 'petstore_db_pool_max',
      help: 'Largest number of PostgreSQL connections this process opens',
      registers: [registry],
      collect() {
        this.set(poolStats().max);
      },
    });
  }
  if (readRoutes !== undefined) {
    new Counter({
      name: 'petstore_db_reads_total',
      help:
        'Reads of listPets, pets.page and getPet by where they went (target: replica, primary) and why (reason: ' +
        'replica, no_replica_caught_up, replicas_lagging, replicas_down, replica_failed)',
      labelNames: ['target', 'reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [route, count] of readRoutes()) {
          const [target, reason] = route.includes(':') ? route.split(':') : [route, route];
          this.inc({ target, reason }, count);
        }
      },
    });
  }
  return {
    registry,
    observe(label, method, status, seconds) {
      const labels = {
        operation: label.operation,
        transport: label.transport,
        method: METHODS.has(method) ? method : 'other',
        status_class: statusClass(status),
      };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
  };
}
