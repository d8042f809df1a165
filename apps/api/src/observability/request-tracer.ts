import type { startTracing } from './tracing.js';

// The shape of tracing as the rest of the app sees it. Types only: the OpenTelemetry modules behind it
// (tracing.ts) are imported by start.ts only when tracing is configured, so a process without it never loads them.

/** Starts a request's server span: a child of the caller's W3C `traceparent` when it sent a valid one. */
export type RequestTracer = ReturnType<typeof startTracing>['requests'];
