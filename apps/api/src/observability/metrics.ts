import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/database.js';
import { ALL_LABELS, type OperationLabel } from './operation-label.js';

// Prometheus metrics (prom-client), served on a port of their own (METRICS_PORT, http/metrics-server.ts), never on
// the API's port.
//
// The request path stays cheap: prom-client's own `observe(labels, value)` validates and hashes its label object
// on every call (about 1 µs with four labels). Here a request adds to fixed cells instead (a few array writes,
// no allocation), indexed by its precomputed operation label, method and status class; prom-client reads the
// cells only when Prometheus scrapes, through the two metric classes below, and renders them with everything
// else (process defaults, pool gauges) in its text format.

/** Upper bounds in seconds: this API answers in about a millisecond; a slow database shows from 25 ms up. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'other'] as const;
const METHOD_INDEX = new Map<string, number>(METHODS.map((method, index) => [method, index]));
const OTHER_METHOD = METHODS.length - 1;
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'other'] as const;

const LABEL_NAMES = ['operation', 'transport', 'method', 'status_class'] as const;
type LabelName = (typeof LABEL_NAMES)[number];

/** Counts and durations of requests by label, method and status class, in flat arrays. */
class RequestCells {
  readonly counts: Float64Array;
  readonly sums: Float64Array;
  /** Per cell, per bucket: requests at most that long (not cumulative; summed on export). */
  readonly buckets: Float64Array;

  constructor() {
    const cells = ALL_LABELS.length * METHODS.length * STATUS_CLASSES.length;
    this.counts = new Float64Array(cells);
    this.sums = new Float64Array(cells);
    this.buckets = new Float64Array(cells * DURATION_BUCKETS.length);
  }

  observe(label: OperationLabel, method: string, status: number, seconds: number): void {
    const methodIndex = METHOD_INDEX.get(method) ?? OTHER_METHOD;
    const statusClass = status >= 100 && status < 600 ? ((status / 100) | 0) - 1 : STATUS_CLASSES.length - 1;
    const cell = (label.index * METHODS.length + methodIndex) * STATUS_CLASSES.length + statusClass;
    this.counts[cell] = (this.counts[cell] as number) + 1;
    this.sums[cell] = (this.sums[cell] as number) + seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
    if (bucket < DURATION_BUCKETS.length) {
      const at = cell * DURATION_BUCKETS.length + bucket;
      this.buckets[at] = (this.buckets[at] as number) + 1;
    }
  }

  /** The cells with at least one request, with their label values. */
  *used(): Generator<{ cell: number; labels: Record<LabelName, string> }> {
    for (let cell = 0; cell < this.counts.length; cell++) {
      if (this.counts[cell] === 0) continue;
      const statusClass = cell % STATUS_CLASSES.length;
      const methodIndex = ((cell - statusClass) / STATUS_CLASSES.length) % METHODS.length;
      const label = ALL_LABELS[Math.floor(cell / (STATUS_CLASSES.length * METHODS.length))] as OperationLabel;
      yield {
        cell,
        labels: {
          operation: label.operation,
          transport: label.transport,
          method: METHODS[methodIndex] as string,
          status_class: STATUS_CLASSES[statusClass] as string,
        },
      };
    }
  }
}

// prom-client's typings declare `type` as a numeric enum while its registry writes the string it finds there
// ('counter', 'histogram'), as its own metric classes return: hence the casts on what `get` returns.
type CounterData = Awaited<ReturnType<Counter<LabelName>['get']>>;
type HistogramData = Awaited<ReturnType<Histogram<LabelName>['get']>>;

const COUNTER_HELP = 'HTTP requests answered, by operation, transport, method and status class';
const HISTOGRAM_HELP =
  'Time from the request reaching Express to the response finishing, by operation, transport, method and status class';

/** `petstore_http_requests_total`, read from the cells at scrape time. */
class RequestCounter extends Counter<LabelName> {
  constructor(
    private readonly cells: RequestCells,
    registry: Registry,
  ) {
    super({
      name: 'petstore_http_requests_total',
      help: COUNTER_HELP,
      labelNames: LABEL_NAMES,
      registers: [registry],
    });
  }

  override async get(): Promise<CounterData> {
    const values = [...this.cells.used()].map(({ cell, labels }) => ({
      labels,
      value: this.cells.counts[cell] as number,
    }));
    return {
      name: 'petstore_http_requests_total',
      help: COUNTER_HELP,
      type: 'counter',
      values,
      aggregator: 'sum',
    } as unknown as CounterData;
  }
}

/** `petstore_http_request_duration_seconds`, read from the cells at scrape time. */
class RequestDurationHistogram extends Histogram<LabelName> {
  constructor(
    private readonly cells: RequestCells,
    registry: Registry,
  ) {
    super({
      name: 'petstore_http_request_duration_seconds',
      help: HISTOGRAM_HELP,
      labelNames: LABEL_NAMES,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** What prom-client's registry renders: buckets (cumulative), +Inf, sum and count per used cell. */
  async getForPromString() {
    const name = 'petstore_http_request_duration_seconds';
    const values: { labels: object; sharedLabels: object; value: number; metricName: string }[] = [];
    for (const { cell, labels } of this.cells.used()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((upperBound, bucket) => {
        cumulative += this.cells.buckets[cell * DURATION_BUCKETS.length + bucket] as number;
        values.push({
          labels: { le: upperBound },
          sharedLabels: labels,
          value: cumulative,
          metricName: `${name}_bucket`,
        });
      });
      const count = this.cells.counts[cell] as number;
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: labels,
        value: count,
        metricName: `${name}_bucket`,
      });
      values.push({
        labels: {},
        sharedLabels: labels,
        value: this.cells.sums[cell] as number,
        metricName: `${name}_sum`,
      });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count` });
    }
    return { name, help: HISTOGRAM_HELP, type: 'histogram', values, aggregator: 'sum' };
  }

  override async get(): Promise<HistogramData> {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...sharedLabels, ...labels },
        value,
        metricName,
      })),
    } as unknown as HistogramData;
  }
}

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
  /** Node's defaults (event-loop lag, heap, GC, CPU, handles); on unless false (tests compare registries). */
  processDefaults?: boolean;
}

export function createMetrics({
  poolStats,
  readRoutes,
  processDefaults = true,
}: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (processDefaults) collectDefaultMetrics({ register: registry });
  const cells = new RequestCells();
  new RequestCounter(cells, registry);
  new RequestDurationHistogram(cells, registry);
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
    observe: (label, method, status, seconds) => cells.observe(label, method, status, seconds),
  };
}
