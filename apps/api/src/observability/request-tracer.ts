import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Sql } from '../db/sql.js';
import type { OperationLabel } from './operation-label.js';

// The shape of tracing as the rest of the app sees it. Types only: the OpenTelemetry modules behind it
// (tracing.ts) are imported by main only when tracing is configured, so a process without it never loads them.

/** A request's server span. */
export interface TracedRequest {
  /** 32 hex digits, for the access-log line. */
  readonly traceId: string;
  /** Runs the rest of the request inside the span's context, so database spans become its children. */
  run(next: () => void): void;
  /** Names the span by the operation, records the status and the caller (`enduser.id`) and ends it; later calls do nothing. */
  end(label: OperationLabel, status: number, caller?: string): void;
}

export interface RequestTracer {
  /** Starts the server span: a child of the caller's W3C `traceparent` when it sent a valid one. */
  start(req: IncomingMessage, res: ServerResponse): TracedRequest;
}

export interface Tracing {
  requests: RequestTracer;
  /** The hot statements with a client span each (they bypass Prisma's client, hence its instrumentation). */
  traceSql(sql: Sql, system: 'postgresql' | 'pglite'): Sql;
  /** Exports the spans still buffered and stops. */
  shutdown(): Promise<void>;
}
