import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import type { Config } from '../config.js';
import type { Sql } from '../db/sql.js';
import type { OperationLabel } from './operation-label.js';

// OpenTelemetry (docs/operations.md#traces), imported by main only when an OTLP endpoint is set. The statements
// of db/sql.ts bypass Prisma's client, hence its instrumentation: traceSql gives each a client span of its own.

/** `SELECT pets`, `INSERT pets`: the statement's verb and first table (OpenTelemetry's database span names). */
export function statementSpanName(statement: string): string {
  const verb = /^\s*(?:with\b[\s\S]*?\)\s*)?(\w+)/i.exec(statement)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/i.exec(statement)?.[1];
  return table === undefined ? verb : `${verb} ${table}`;
}

export function startTracing({ tracesUrl, serviceName }: NonNullable<Config['tracing']>) {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    // The caller's sampling decision wins (its `traceparent` flags); a request without one is sampled.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl }) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const prismaInstrumentation = new PrismaInstrumentation();
  prismaInstrumentation.setTracerProvider(provider);
  prismaInstrumentation.enable();
  const tracer = provider.getTracer('@petstore/api');

  const start = (req: IncomingMessage, res: ServerResponse) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.scheme': 'http' } },
      parent,
    );
    const { traceId, spanId, traceFlags } = span.spanContext();
    const active = trace.setSpan(parent, span);
    res.setHeader('traceresponse', `00-${traceId}-${spanId}-0${traceFlags.toString(16)}`);
    let ended = false;
    return {
      /** 32 hex digits, for the access-log line. */
      traceId,
      /** Runs the rest of the request inside the span's context, so database spans become its children. */
      run: (next: () => void) => context.with(active, next),
      /** Names the span by the operation, records the status and the caller (`enduser.id`) and ends it, once. */
      end(label: OperationLabel, status: number, caller?: string) {
        if (ended) return;
        ended = true;
        if (caller !== undefined) span.setAttribute('enduser.id', caller);
        span.updateName(label.operation === 'unknown' ? `${method} unknown` : label.operation);
        span.setAttributes({ 'petstore.operation': label.operation, 'petstore.transport': label.transport });
        if (status === 0) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection first' });
        } else {
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      },
    };
  };

  const spanNames = new Map<string, string>();
  const traceSql = (sql: Sql): Sql => ({
    rows(statement, args) {
      let name = spanNames.get(statement);
      if (name === undefined) {
        name = statementSpanName(statement);
        if (spanNames.size < 256) spanNames.set(statement, name);
      }
      // PGlite is PostgreSQL too. The text only: arguments (names, key digests) are never recorded.
      const attributes = { 'db.system.name': 'postgresql', 'db.query.text': statement };
      return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, (span) =>
        sql
          .rows(statement, args)
          .catch((error: unknown) => {
            span.recordException(error as Error);
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw error;
          })
          .finally(() => span.end()),
      );
    },
  });

  return {
    requests: { start },
    traceSql,
    /** Exports the spans still buffered and stops. */
    async shutdown() {
      prismaInstrumentation.disable();
      await provider.shutdown();
    },
  };
}
