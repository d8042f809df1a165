import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, parseConfig } from './config.js';
import { QUERY_TIMEOUT_MARGIN_MS } from './db/database-limits.js';

const KEY = 'a-key-of-sixteen-chars';

describe('parseConfig', () => {
  it('has defaults for a zero-setup local run', () => {
    expect(parseConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './.data',
      databaseLimits: {
        statementTimeoutMs: 2_500,
        idleInTransactionTimeoutMs: 10_000,
        acquireTimeoutMs: 3_000,
      },
      databaseStatements: 'auto',
      databaseReadUrls: [],
      databaseReadMaxLagMs: 1_000,
      apiKeys: undefined,
      appEnv: undefined,
      logLevel: 'info',
      idempotencyKeyTtlSeconds: 86_400,
      mcpDeprecatedTools: false,
      serverLimits: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 65_000,
        maxConnections: 1_000,
      },
      shutdownDrainMs: 0,
      events: {
        pollIntervalMs: 1_000,
        retentionSeconds: 604_800,
        pruneIntervalMs: 60_000,
        maxPerCaller: 100,
        stallMs: 30_000,
        keepAliveMs: 15_000,
        listenUrl: undefined,
      },
    });
  });

  it('reads every variable', () => {
    expect(
      parseConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgresql://u:p@db:5432/pets',
        DATA_DIR: '/var/lib/petstore',
        API_KEYS: ` ${KEY} ,second-key-0123456789,`,
        APP_ENV: 'staging',
        LOG_LEVEL: 'warn',
        IDEMPOTENCY_KEY_TTL_SECONDS: '3600',
        HTTP_REQUEST_TIMEOUT_MS: '20000',
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '75000',
        HTTP_MAX_CONNECTIONS: '200',
        METRICS_PORT: '9464',
        METRICS_HOST: '10.0.0.5',
        SHUTDOWN_DRAIN_MS: '15000',
        DATABASE_STATEMENT_TIMEOUT_MS: '1500',
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '20000',
        DATABASE_ACQUIRE_TIMEOUT_MS: '1000',
        DATABASE_STATEMENTS: 'unnamed',
        DATABASE_READ_URL: 'postgresql://u:p@replica-1:5432/pets, postgresql://u:p@replica-2:5432/pets',
        DATABASE_READ_MAX_LAG_MS: '500',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_SERVICE_NAME: 'pets-eu',
        MCP_DEPRECATED_TOOLS: 'true',
        EVENTS_POLL_MS: '250',
        EVENTS_RETENTION_SECONDS: '86400',
        EVENTS_PRUNE_INTERVAL_MS: '30000',
        EVENTS_MAX_PER_CALLER: '5',
        EVENTS_STALL_MS: '10000',
        EVENTS_KEEPALIVE_MS: '20000',
        EVENTS_LISTEN_URL: 'postgresql://u:p@db-direct:5432/pets',
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgresql://u:p@db:5432/pets',
      dataDir: '/var/lib/petstore',
      databaseLimits: {
        statementTimeoutMs: 1_500,
        idleInTransactionTimeoutMs: 20_000,
        acquireTimeoutMs: 1_000,
      },
      databaseStatements: 'unnamed',
      databaseReadUrls: ['postgresql://u:p@replica-1:5432/pets', 'postgresql://u:p@replica-2:5432/pets'],
      databaseReadMaxLagMs: 500,
      apiKeys: [KEY, 'second-key-0123456789'],
      appEnv: 'staging',
      logLevel: 'warn',
      idempotencyKeyTtlSeconds: 3_600,
      mcpDeprecatedTools: true,
      serverLimits: {
        requestTimeoutMs: 20_000,
        headersTimeoutMs: 5_000,
        keepAliveTimeoutMs: 75_000,
        maxConnections: 200,
      },
      metrics: { port: 9464, host: '10.0.0.5' },
      shutdownDrainMs: 15_000,
      tracing: { tracesUrl: 'http://collector:4318/v1/traces', serviceName: 'pets-eu' },
      events: {
        pollIntervalMs: 250,
        retentionSeconds: 86_400,
        pruneIntervalMs: 30_000,
        maxPerCaller: 5,
        stallMs: 10_000,
        keepAliveMs: 20_000,
        listenUrl: 'postgresql://u:p@db-direct:5432/pets',
      },
    });
  });

  it('listens for the change feed on DATABASE_URL unless EVENTS_LISTEN_URL says otherwise; never without it', () => {
    expect(parseConfig({ DATABASE_URL: 'postgresql://pool:6432/pets' }).events.listenUrl).toBe(
      'postgresql://pool:6432/pets',
    );
    expect(() => parseConfig({ EVENTS_LISTEN_URL: 'postgresql://db/pets' })).toThrow(
      /EVENTS_LISTEN_URL: needs DATABASE_URL/,
    );
  });

  it.each([
    ['DATABASE_STATEMENT_TIMEOUT_MS', '0'],
    ['DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', '-5'],
    ['DATABASE_ACQUIRE_TIMEOUT_MS', '2.5'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', 'soon'],
  ])('refuses %s=%s: a database time limit is a whole number of milliseconds, at least 1', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(
      new RegExp(`${name}: must be (a whole number of milliseconds|at least 1 millisecond)`),
    );
  });

  // Every whole-number variable reads its text by the one rule for integers in text (integerOfText, as a JSON
  // number on the wire): what that rule refuses is refused here, never read as JavaScript's Number() would.
  it.each([
    ['PORT', '0x10'],
    ['PORT', ' 8080'],
    ['PORT', '8080 '],
    ['PORT', '+8080'],
    ['HTTP_MAX_CONNECTIONS', '1_000'],
    ['HTTP_MAX_CONNECTIONS', 'Infinity'],
    ['RATE_LIMIT_PER_MINUTE', '0b11'],
    ['EVENTS_POLL_MS', '1e-400'],
    ['IDEMPOTENCY_KEY_TTL_SECONDS', '\u0085600'],
  ])('refuses %s=%j: not an integer by the one rule for integers in text', (name, value) => {
    expect(() => parseConfig({ [name]: JSON.parse(`"${value}"`) })).toThrow(new RegExp(`${name}: must be`));
  });

  it.each([
    ['PORT', '8080', 8080],
    ['PORT', '8.08e3', 8080],
    ['HTTP_MAX_CONNECTIONS', '1000.0', 1000],
  ])('reads %s=%s as %d, the integer it spells', (name, value, expected) => {
    const config = parseConfig({ [name]: value });
    expect(name === 'PORT' ? config.port : config.serverLimits.maxConnections).toBe(expected);
  });

  it('refuses a DATABASE_STATEMENTS other than auto, named or unnamed', () => {
    expect(parseConfig({ DATABASE_STATEMENTS: 'named' }).databaseStatements).toBe('named');
    expect(() => parseConfig({ DATABASE_STATEMENTS: 'prepared' })).toThrow(
      /DATABASE_STATEMENTS: must be auto \(named, unless a transaction-mode pooler is found\), named or unnamed/,
    );
  });

  it('refuses DATABASE_READ_URL without DATABASE_URL, or with an entry that is not a PostgreSQL URL', () => {
    expect(() => parseConfig({ DATABASE_READ_URL: 'postgresql://replica/pets' })).toThrow(
      /DATABASE_READ_URL: needs DATABASE_URL/,
    );
    expect(() =>
      parseConfig({
        DATABASE_URL: 'postgresql://db/pets',
        DATABASE_READ_URL: 'postgresql://r/pets,http://r/',
      }),
    ).toThrow(/DATABASE_READ_URL: each entry must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });

  it('drains 10 s by default in a deployed environment, not at all in local development', () => {
    expect(parseConfig({ APP_ENV: 'production', API_KEYS: KEY }).shutdownDrainMs).toBe(10_000);
    expect(parseConfig({ APP_ENV: 'staging', API_KEYS: KEY, SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs).toBe(
      0,
    );
    expect(parseConfig({}).shutdownDrainMs).toBe(0);
  });

  it('serves metrics only when METRICS_PORT is set, on 127.0.0.1 unless METRICS_HOST says otherwise', () => {
    expect(parseConfig({}).metrics).toBeUndefined();
    expect(parseConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0' }).metrics).toEqual({
      port: 9464,
      host: '127.0.0.1',
    });
    expect(() => parseConfig({ METRICS_PORT: '3000' })).toThrow(/METRICS_PORT: must differ from PORT/);
  });

  it('traces only when an OTLP endpoint is set and the SDK is not disabled; the signal URL wins', () => {
    expect(parseConfig({}).tracing).toBeUndefined();
    expect(
      parseConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/in',
      }).tracing,
    ).toEqual({ tracesUrl: 'https://traces.example.com/in', serviceName: 'petstore-api' });
    expect(
      parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })
        .tracing,
    ).toBeUndefined();
  });

  // A value that says nothing is refused where it could hide a missing one: blank anywhere, empty in a deployed
  // environment (a secret that was not injected must stop the deploy, not start it on a default: PGlite, port 3000).
  it.each(CONFIG_VARIABLES)('refuses %s blank anywhere, and empty when APP_ENV is set', (name) => {
    for (const blank of [' ', '\t', '  \t ']) {
      expect(() => parseConfig({ [name]: blank }), JSON.stringify(blank)).toThrow(
        new RegExp(`^invalid configuration:\\n  ${name}: is blank`),
      );
    }
    if (name === 'APP_ENV') return;
    for (const appEnv of ['production', 'staging']) {
      expect(() => parseConfig({ APP_ENV: appEnv, API_KEYS: KEY, [name]: '' })).toThrow(
        new RegExp(`^invalid configuration:\\n  ${name}: is empty; APP_ENV=${appEnv}`),
      );
    }
  });

  it.each(['API_KEYS', 'CORS_ORIGINS', 'DATABASE_READ_URL'])('refuses %s listing nothing', (name) => {
    for (const list of [',', ' , ', ',,']) {
      expect(() => parseConfig({ DATABASE_URL: 'postgresql://db/pets', [name]: list })).toThrow(
        new RegExp(`${name}: must list at least one`),
      );
    }
  });

  it('refuses a public URL with credentials (it would be sent to every client)', () => {
    for (const url of ['https://u:p@x.example/v1', 'https://u@x.example/v1', 'https://:p@x.example/v1']) {
      expect(() => parseConfig({ PETSTORE_PRODUCTION_URL: url })).toThrow(
        /PETSTORE_PRODUCTION_URL: .*credentials/,
      );
    }
  });

  it('treats empty values as unset', () => {
    expect(parseConfig({ PORT: '', DATABASE_URL: '', API_KEYS: '', APP_ENV: '' })).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      apiKeys: undefined,
      appEnv: undefined,
    });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '1.5' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://localhost/pets' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ API_KEYS: 'short' }, 'API_KEYS'],
    [{ API_KEYS: ',,' }, 'API_KEYS'],
    [{ API_KEYS: 'has a space in the key!' }, 'API_KEYS'],
    [{ APP_ENV: 'prod' }, 'APP_ENV'],
    [{ METRICS_PORT: 'metrics' }, 'METRICS_PORT'],
    [{ SHUTDOWN_DRAIN_MS: '-1' }, 'SHUTDOWN_DRAIN_MS'],
    [{ SHUTDOWN_DRAIN_MS: '10s' }, 'SHUTDOWN_DRAIN_MS'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_SDK_DISABLED: 'yes' }, 'OTEL_SDK_DISABLED'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '0' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '2.5' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'long' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [{ HTTP_MAX_CONNECTIONS: '-1' }, 'HTTP_MAX_CONNECTIONS'],
    [{ IDEMPOTENCY_KEY_TTL_SECONDS: '0' }, 'IDEMPOTENCY_KEY_TTL_SECONDS'],
    [{ IDEMPOTENCY_KEY_TTL_SECONDS: '1 day' }, 'IDEMPOTENCY_KEY_TTL_SECONDS'],
    [{ EVENTS_POLL_MS: '0' }, 'EVENTS_POLL_MS'],
    [{ EVENTS_PRUNE_INTERVAL_MS: '2147483648' }, 'EVENTS_PRUNE_INTERVAL_MS'],
    [{ EVENTS_STALL_MS: '1.5' }, 'EVENTS_STALL_MS'],
    [{ EVENTS_KEEPALIVE_MS: 'often' }, 'EVENTS_KEEPALIVE_MS'],
    [{ EVENTS_RETENTION_SECONDS: '0' }, 'EVENTS_RETENTION_SECONDS'],
    [{ EVENTS_RETENTION_SECONDS: '31536001' }, 'EVENTS_RETENTION_SECONDS'],
    [{ EVENTS_MAX_PER_CALLER: '0' }, 'EVENTS_MAX_PER_CALLER'],
    [{ DATABASE_URL: 'postgresql://db/pets', EVENTS_LISTEN_URL: 'http://db/' }, 'EVENTS_LISTEN_URL'],
    // The contract's rule for a base URL (checkApiBaseUrl): http(s), ending in /v1, no query or fragment.
    [{ PETSTORE_PRODUCTION_URL: 'not a url' }, 'PETSTORE_PRODUCTION_URL'],
    [{ PETSTORE_PRODUCTION_URL: 'ftp://api.example.com/v1' }, 'PETSTORE_PRODUCTION_URL'],
    [{ PETSTORE_STAGING_URL: 'https://api.example.com' }, 'PETSTORE_STAGING_URL'],
    [{ PETSTORE_STAGING_URL: 'https://api.example.com/v1?x=1' }, 'PETSTORE_STAGING_URL'],
  ])('refuses %j, naming the variable', (env, variable) => {
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(new RegExp(`^invalid configuration:\\n  ${variable}: `));
  });

  it('keeps a public URL as the contract normalises it (trailing slashes dropped)', () => {
    expect(parseConfig({ PETSTORE_STAGING_URL: 'https://staging.example.com/v1//' }).stagingUrl).toBe(
      'https://staging.example.com/v1',
    );
  });

  it.each(['production', 'staging'])('refuses APP_ENV=%s without API_KEYS', (appEnv) => {
    expect(() => parseConfig({ APP_ENV: appEnv })).toThrow(
      new RegExp(`^invalid configuration:\\n  API_KEYS: is required when APP_ENV=${appEnv}`),
    );
    expect(parseConfig({ APP_ENV: appEnv, API_KEYS: KEY }).apiKeys).toEqual([KEY]);
  });

  it('accepts keys of token68 characters, the ones a Bearer header can carry', () => {
    const keys = ['Az09-._~+/0123456789', 'ends-in-padding-0123==', `psk_${'x'.repeat(43)}`, 'k'.repeat(256)];
    expect(parseConfig({ API_KEYS: keys.join(',') }).apiKeys).toEqual(keys);
  });

  it.each([
    ['a character outside token68', 'has-a-bang-0123456789!'],
    ['an = before the end', 'mid=equals-0123456789'],
    ['a quote', 'quoted"key-0123456789'],
    ['more than 256 characters', 'k'.repeat(257)],
  ])('refuses a key with %s, naming API_KEYS without echoing the key', (_what, key) => {
    let message = '';
    try {
      parseConfig({ API_KEYS: `${KEY},${key}` });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/^invalid configuration:\n {2}API_KEYS: /);
    expect(message).not.toContain(key);
    expect(message).not.toContain(KEY);
  });

  it('never prints a key in its messages', () => {
    let message = '';
    try {
      parseConfig({ API_KEYS: `${KEY},bad key` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/API_KEYS/);
    expect(message).not.toContain(KEY);
  });

  it.each([
    'app.example.com',
    'notaurl',
    '*,notaurl',
    'https://a.com/',
    'https://a.com/path',
    'https://a.com,ftp://b.com',
    'https://A.com',
    'https://a.com?x',
  ])('refuses CORS_ORIGINS=%s with the rule for an entry', (value) => {
    expect(() => parseConfig({ CORS_ORIGINS: value })).toThrow(
      new ConfigError(
        'invalid configuration:\n  CORS_ORIGINS: each entry must be * or an origin such as ' +
          'https://app.example.com (no path or trailing slash)',
      ),
    );
  });

  it('accepts * and origins in CORS_ORIGINS', () => {
    expect(parseConfig({ CORS_ORIGINS: '*, https://a.com,http://b.example:8080' }).corsOrigins).toEqual([
      '*',
      'https://a.com',
      'http://b.example:8080',
    ]);
  });

  // The class behind a crash at start-up (CORS_ORIGINS=notaurl threw a TypeError with a stack): whatever the text
  // of any variable, parseConfig returns or throws a ConfigError naming that variable, in our words, not zod's.
  it('answers any value of any variable with a config or a ConfigError naming it', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom(' ', '\t', '\u00a0', ',', ',,', '*', '-0', '0', '-1', 'NaN', 'true', 'TRUE', 'null'),
      fc.oneof(fc.bigInt(), fc.double()).map(String),
      fc.constantFrom('2147483648', '3000000000', '1e400', '9'.repeat(400), '1'.padEnd(30, '0')),
      fc
        .tuple(
          fc.constantFrom('http://', 'https://', 'postgresql://', 'ftp://', '*,', 'https://a.com,', 'psk_'),
          fc.string({ unit: 'grapheme' }),
        )
        .map(([prefix, rest]) => prefix + rest),
    );
    fc.assert(
      fc.property(fc.constantFrom(...CONFIG_VARIABLES), text, (variable, value) => {
        let thrown: unknown;
        try {
          parseConfig({ [variable]: value });
        } catch (error) {
          thrown = error;
        }
        if (thrown === undefined) return;
        expect(thrown).toBeInstanceOf(ConfigError);
        const message = (thrown as Error).message;
        expect(message).toMatch(new RegExp(`\\b${variable}\\b`));
        expect(message).not.toMatch(/: (Invalid|Too (small|big))\b/);
      }),
      { numRuns: 3_000 },
    );
  });

  // Node's longest timer is 2^31-1 ms: a longer one fires at once (a TimeoutOverflowWarning), PostgreSQL's
  // statement_timeout and idle_in_transaction_session_timeout stop at the same INT_MAX, and a server silently
  // truncates it. Every millisecond variable, present and future, is bounded by it.
  it.each(CONFIG_VARIABLES.filter((variable) => variable.endsWith('_MS')))(
    'refuses %s past the longest timer (2147483647 ms)',
    (variable) => {
      for (const value of ['2147483648', '3000000000'])
        expect(() => parseConfig({ [variable]: value })).toThrow(
          new RegExp(`^invalid configuration:\\n  ${variable}: must be at most \\d+ milliseconds`),
        );
    },
  );

  // A tRPC subscription client reconnects after three keep-alives of silence: 3 x EVENTS_KEEPALIVE_MS past Node's
  // longest timer fired at once, and the official client reconnected hundreds of times a second.
  it("keeps three EVENTS_KEEPALIVE_MS within the longest timer (tRPC's reconnect wait)", () => {
    const largest = Math.floor(2_147_483_647 / 3);
    expect(parseConfig({ EVENTS_KEEPALIVE_MS: String(largest) }).events.keepAliveMs).toBe(largest);
    expect(() => parseConfig({ EVENTS_KEEPALIVE_MS: String(largest + 1) })).toThrow(
      `EVENTS_KEEPALIVE_MS: must be at most ${largest} milliseconds`,
    );
  });

  it('keeps DATABASE_STATEMENT_TIMEOUT_MS plus the client-side margin within the longest timer', () => {
    const largest = 2_147_483_647 - QUERY_TIMEOUT_MARGIN_MS;
    expect(
      parseConfig({ DATABASE_STATEMENT_TIMEOUT_MS: String(largest) }).databaseLimits.statementTimeoutMs,
    ).toBe(largest);
    expect(() => parseConfig({ DATABASE_STATEMENT_TIMEOUT_MS: String(largest + 1) })).toThrow(
      `DATABASE_STATEMENT_TIMEOUT_MS: must be at most ${largest} milliseconds`,
    );
    for (const variable of ['DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS'])
      expect(() => parseConfig({ [variable]: '2147483647' })).not.toThrow();
  });

  // The OpenTelemetry environment specification: a boolean is true by the case-insensitive "true". One rule for
  // every boolean variable, ours (MCP_DEPRECATED_TOOLS) included; anything but true or false still stops start-up.
  it.each(['true', 'TRUE', 'True', 'tRUE'])('reads the booleans as %s, case-insensitively', (value) => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(parseConfig({ ...endpoint, OTEL_SDK_DISABLED: value }).tracing).toBeUndefined();
    expect(
      parseConfig({ ...endpoint, OTEL_SDK_DISABLED: value.replace(/true/i, 'FALSE') }).tracing,
    ).toBeDefined();
    expect(parseConfig({ MCP_DEPRECATED_TOOLS: value }).mcpDeprecatedTools).toBe(true);
    expect(parseConfig({ MCP_DEPRECATED_TOOLS: value.replace(/true/i, 'False') }).mcpDeprecatedTools).toBe(
      false,
    );
  });

  it.each(['1', 'yes', 'on', ' true'])('refuses the boolean %j, naming the variable', (value) => {
    for (const variable of ['OTEL_SDK_DISABLED', 'MCP_DEPRECATED_TOOLS'])
      expect(() => parseConfig({ [variable]: value })).toThrow(`${variable}: must be true or false`);
  });
});
