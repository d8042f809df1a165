// Composition root (loaded by main.ts): parse env -> open database -> migrate -> createApp -> listen -> shut down on signal.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appliedMigrationNames, listMigrationNames } from '@petstore/migrations';
import { assertExactJsonSupport } from '@petstore/schema';
import { createApp } from './app.js';
import { ConfigError, parseConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrateConfiguredDatabase } from './db/with-configured-database.js';
import { loadOrCreateDevApiKey } from './dev-api-key.js';
import { createPetFeed } from './events/pet-feed.js';
import { capHeapGrowth } from './heap-tuning.js';
import { publicServers } from './http/docs.js';
import { createHealth } from './http/health.js';
import { createLogger, type Logger } from './logger.js';
import { createHttpServer } from './server-limits.js';
import { exitGracefullyOnSignals } from './shutdown.js';

// First: on an older Node the int64 JSON helpers would round ids or throw mid-request; refuse to start instead.
try {
  assertExactJsonSupport();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}

/** Set once the configuration is read: a failed start flushes its buffered lines before saying why it failed. */
let startLogger: Logger | undefined;

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const logger = createLogger(config.logLevel);
  startLogger = logger;

  const devKey = config.apiKeys === undefined ? await loadOrCreateDevApiKey(config.dataDir) : undefined;

  // Tracing first, so that Prisma's instrumentation is in place before the client exists. Its modules (and
  // prom-client's) are loaded only when configured: without them start-up and the request path are unchanged.
  const tracing = config.tracing && (await import('./observability/tracing.js')).startTracing(config.tracing);
  if (config.tracing)
    logger.info({ tracesUrl: config.tracing.tracesUrl }, 'tracing on: spans are sent over OTLP/HTTP');

  const database = await openDatabase({ ...config, logger });
  // Up to date (the usual restart): no schema engine to load. Otherwise the engine migrates, under its lock.
  const { applied } = await migrateConfiguredDatabase(database, config.databaseUrl);
  logger.info(
    { database: database.description, statements: database.statements(), applied },
    'database ready',
  );

  const migrations = await listMigrationNames();
  // The hot statements, each with a client span of its own when tracing is on (readiness's included).
  const sql = tracing === undefined ? database.sql : tracing.traceSql(database.sql);
  const health = createHealth({ appliedMigrations: () => appliedMigrationNames(sql), migrations, logger });
  // The running environment's own public URL, when configured: what its Link headers point at.
  const publicUrl =
    config.appEnv && { production: config.productionUrl, staging: config.stagingUrl }[config.appEnv];
  const metrics =
    config.metrics === undefined
      ? undefined
      : (await import('./observability/metrics.js')).createMetrics({
          poolStats: database.poolStats,
          readRoutes: database.replicas?.routes,
        });
  // The change feed: woken by LISTEN on a direct connection (or PGlite's own listen), polling besides.
  const { keepAliveMs: eventsKeepAliveMs, listenUrl, ...feedOptions } = config.events;
  const petFeed = createPetFeed(sql, await database.petEventWakeups(listenUrl), {
    ...feedOptions,
    // Also the period of the re-check of each stream's issued key (pet-feed.ts recheckKeys).
    keepAliveMs: eventsKeepAliveMs,
    onError: (error) => logger.warn({ err: error }, 'the change feed could not read the outbox'),
  });
  const app = createApp({
    petFeed,
    eventsKeepAliveMs,
    sql,
    replicas:
      database.replicas === undefined || tracing === undefined
        ? database.replicas
        : { ...database.replicas, reads: tracing.traceSql(database.replicas.reads) },
    logger,
    apiKeys: config.apiKeys ?? [devKey as string],
    migrations,
    health,
    corsOrigins: config.corsOrigins,
    rateLimitPerMinute: config.rateLimitPerMinute,
    idempotencyKeyTtlSeconds: config.idempotencyKeyTtlSeconds,
    mcpDeprecatedTools: config.mcpDeprecatedTools,
    servers: publicServers(config),
    publicBaseUrl: publicUrl,
    metrics,
    tracer: tracing?.requests,
  });
  const prototypes = { request: app.request, response: app.response };
  const server = createHttpServer(app, config.serverLimits, prototypes, publicUrl);
  // The metrics listener first: a port or host it cannot have stops start-up before the API says it listens.
  let metricsServer: Server | undefined;
  if (metrics !== undefined && config.metrics !== undefined) {
    const { serveMetrics } = await import('./http/metrics-server.js');
    const { port: wanted, host: metricsAt } = config.metrics;
    metricsServer = await serveMetrics(metrics, wanted, metricsAt).catch((error: Error) => {
      throw listenError(error, 'METRICS_PORT', metricsAt, wanted);
    });
  }
  server.listen(config.port, config.host);
  await once(server, 'listening').catch((error: Error) => {
    throw listenError(error, 'PORT', config.host, config.port);
  });
  capHeapGrowth();
  // The signal handlers go in before anything says "listening": a supervisor (or a test) that sends SIGTERM as
  // soon as it reads that line must get the drain, not Node's default of dying at once.
  const closers: (() => Promise<void>)[] = tracing === undefined ? [] : [() => tracing.shutdown()];
  if (metricsServer !== undefined)
    closers.push(() => new Promise<void>((resolve) => metricsServer.close(() => resolve())));
  exitGracefullyOnSignals({
    server,
    database,
    health,
    logger,
    drainMs: config.shutdownDrainMs,
    closers,
    endStreams: () => petFeed.close(),
  });

  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${hostInUrl(config.host)}:${port}/v1`;

  process.stdout.write(
    `Pet Store API listening on ${baseUrl} (${config.appEnv ?? 'local development'}, ${database.description})\n`,
  );
  process.stdout.write(
    `${publicUrl ? `Public URL: ${publicUrl}; ` : ''}API documentation: ${baseUrl.replace(/\/v1$/, '')}/docs, ${baseUrl}/openapi.json\n`,
  );
  if (devKey !== undefined) {
    process.stdout.write(
      `No API_KEYS set: using the development key kept in ${config.dataDir}/dev-api-key. Try:\n` +
        `  curl -H 'Authorization: Bearer ${devKey}' ${baseUrl}/pets\n`,
    );
  }

  if (metricsServer !== undefined && config.metrics !== undefined) {
    const { port: metricsPort } = metricsServer.address() as AddressInfo;
    process.stdout.write(`Metrics on http://${hostInUrl(config.metrics.host)}:${metricsPort}/metrics\n`);
  }
}

/** An IPv6 address in brackets, as a URL (or host:port) writes it. */
const hostInUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * A port or host that cannot be listened on is the operator's to fix, not a crash: one line saying what is wrong
 * and what to do (a ConfigError, printed without a stack), instead of Node's EADDRINUSE or ENOTFOUND stack trace.
 */
function listenError(error: Error, variable: 'PORT' | 'METRICS_PORT', host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const where = `${hostInUrl(host)}:${port}`;
  const hostVariable = variable === 'PORT' ? 'HOST' : 'METRICS_HOST';
  const useAnAddress = `Use ${hostVariable}=127.0.0.1 or ${hostVariable}=0.0.0.0.`;
  // getaddrinfo: a name that does not resolve (ENOTFOUND, also for text that is no host name at all) or a DNS
  // server that did not answer (EAI_AGAIN).
  const unresolved =
    `${hostVariable}=${host}: not an address of this machine, nor a name that resolves to one (${code}). ` +
    useAnAddress;
  const message = {
    EADDRINUSE:
      `${variable}=${port}: ${where} is already in use (another Pet Store, or another program, listens there). ` +
      `Stop it, or choose another port (${variable}=0 for any free one).`,
    EACCES:
      `${variable}=${port}: not allowed to listen on ${where} (ports below 1024 need privileges). ` +
      `Choose a port of 1024 or above: ${variable}=3000.`,
    EADDRNOTAVAIL: `${hostVariable}=${host}: no interface of this machine has that address. ${useAnAddress}`,
    ENOTFOUND: unresolved,
    EAI_AGAIN: unresolved,
  }[code];
  return message === undefined ? error : new ConfigError(message);
}

main().catch((error: unknown) => {
  const fail = () => {
    process.stderr.write(
      error instanceof ConfigError
        ? `${error.message}\n`
        : `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  };
  // What was logged before (the database line) comes out first: the reason it failed is the last line.
  if (startLogger === undefined) fail();
  else startLogger.flush(fail);
});
