/**
 * The change feed as a subscriber sees it on the wire (GET /v1/pets/events, Server-Sent Events), for the feed
 * scenarios: a small reader of one stream (node:http, one connection of its own per stream, so a balancer routes
 * each stream on its own and a scenario can hold a thousand), a follower that reconnects with `Last-Event-ID` as
 * an EventSource does, the check of what a subscriber received against the outbox table, and percentiles for the
 * latency figures. It speaks the wire only (no import from the api's src/), as @petstore/client's iterator will.
 * No vitest import: `pnpm scale-test` and `pnpm reliability` use this too.
 */
import { type IncomingHttpHeaders, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type Pet, PetSchema, parseJson } from '@petstore/schema';
import pg from 'pg';
import { authHeaders, sleep } from './scenario-support.js';

/** One event as a subscriber received it. */
export interface FeedEvent {
  id: bigint;
  kind: string;
  pet: Pet;
  /** performance.now() when its last byte arrived. */
  receivedAt: number;
}

/** How a stream ended: the server ended it, sent an `error` event (its Error body), or the connection was cut. */
export type StreamEnd =
  | { how: 'ended' }
  | { how: 'error-event'; body: string }
  | { how: 'cut'; error: string }
  | { how: 'closed-by-client' };

export interface StreamOptions {
  /** Events after this id: the `Last-Event-ID` header. */
  lastEventId?: bigint;
  /** Events after this id: the `since` query parameter. */
  since?: bigint;
  /** The API key (RELIABILITY_API_KEY by default). */
  apiKey?: string;
  onEvent?: (event: FeedEvent) => void;
}

export interface EventStream {
  /** The status of the answer, and its headers. */
  status: number;
  headers: IncomingHttpHeaders;
  /** The body of a non-200 answer (an Error), read whole. */
  body: string;
  /** When the answer's headers arrived (performance.now()). */
  openedAt: number;
  /** Every complete event so far, in the order received. */
  events: FeedEvent[];
  /** Whether the `retry:` line that opens a stream arrived. */
  started(): boolean;
  /** Settles once the stream is over (never rejects). */
  ended: Promise<StreamEnd>;
  /** The client's local port (the server sees the connection from it). */
  localPort: number | undefined;
  /** Stops reading from the socket (the kernel's buffers fill, the server's writes stop draining), and resumes. */
  pause(): void;
  resume(): void;
  close(): void;
}

/**
 * Parses Server-Sent Events text as it arrives (the WHATWG HTML standard, section 9.2.6): fields `id`, `event`,
 * `data`, `retry`; comment lines (`: keep-alive`) ignored; an event is complete only at its blank line, so one cut
 * off mid-way by a dropped connection is never counted.
 */
class EventTextParser {
  private pending = '';
  private id: string | undefined;
  private kind: string | undefined;
  private data: string[] = [];
  retrySeen = false;

  /** Complete events in `chunk`, as [id, event, data]. */
  push(chunk: string): { id: string | undefined; kind: string; data: string }[] {
    this.pending += chunk;
    const complete: { id: string | undefined; kind: string; data: string }[] = [];
    for (;;) {
      const end = this.pending.search(/\r\n|\r|\n/);
      if (end < 0) break;
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + (this.pending.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.data.length > 0 || this.kind !== undefined)
          complete.push({ id: this.id, kind: this.kind ?? 'message', data: this.data.join('\n') });
        this.kind = undefined;
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') this.id = value;
      else if (field === 'event') this.kind = value;
      else if (field === 'data') this.data.push(value);
      else if (field === 'retry') this.retrySeen = true;
    }
    return complete;
  }
}

/**
 * Opens GET `${baseUrl}/pets/events` and resolves once the answer's headers arrived. A 200 is then read as events
 * until it ends; any other status is read whole into `body`. An event whose `id:` disagrees with its data's id, or
 * whose data is not a PetEvent, cuts the stream (`cut`, with the reason): a scenario counts that as a violation.
 */
export function openEventStream(baseUrl: string, options: StreamOptions = {}): Promise<EventStream> {
  const url = new URL(`${baseUrl}/pets/events`);
  if (options.since !== undefined) url.searchParams.set('since', String(options.since));
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    authorization: options.apiKey === undefined ? authHeaders.authorization : `Bearer ${options.apiKey}`,
  };
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  return new Promise((resolve, reject) => {
    let settle: (end: StreamEnd) => void = () => {};
    const ended = new Promise<StreamEnd>((resolveEnd) => {
      let done = false;
      settle = (end) => {
        if (done) return;
        done = true;
        resolveEnd(end);
      };
    });
    let closedByClient = false;
    // agent: false: a connection of its own, closed with the stream.
    const req = request(url, { headers, agent: false }, (res) => {
      const parser = new EventTextParser();
      const events: FeedEvent[] = [];
      let body = '';
      const stream: EventStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        get body() {
          return body;
        },
        openedAt: performance.now(),
        events,
        started: () => parser.retrySeen,
        ended,
        localPort: req.socket?.localPort,
        pause() {
          res.pause();
          res.socket.pause();
        },
        resume() {
          res.socket.resume();
          res.resume();
        },
        close() {
          closedByClient = true;
          settle({ how: 'closed-by-client' });
          req.destroy();
        },
      };
      res.setEncoding('utf8');
      if (stream.status !== 200) {
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => settle({ how: 'ended' }));
      } else {
        res.on('data', (chunk: string) => {
          const receivedAt = performance.now();
          for (const { id, kind, data } of parser.push(chunk)) {
            if (kind === 'error') {
              settle({ how: 'error-event', body: data });
              req.destroy();
              return;
            }
            let event: FeedEvent;
            try {
              const parsed = parseJson(data) as { id?: unknown; kind?: unknown; pet?: unknown };
              if (typeof parsed.id !== 'bigint' && typeof parsed.id !== 'number') throw new Error('no id');
              event = { id: BigInt(parsed.id), kind, pet: PetSchema.parse(parsed.pet), receivedAt };
              if (String(event.id) !== id || parsed.kind !== kind)
                throw new Error(`id: ${id}, event: ${kind}`);
            } catch (error) {
              settle({ how: 'cut', error: `not a PetEvent (${String(error)}): ${data.slice(0, 200)}` });
              req.destroy();
              return;
            }
            events.push(event);
            options.onEvent?.(event);
          }
        });
        res.on('end', () => settle({ how: 'ended' }));
      }
      res.on('aborted', () => settle({ how: 'cut', error: 'aborted' }));
      res.on('error', (error) =>
        settle({ how: closedByClient ? 'closed-by-client' : 'cut', error: error.message }),
      );
      res.on('close', () => settle({ how: closedByClient ? 'closed-by-client' : 'cut', error: 'closed' }));
      resolve(stream);
    });
    req.on('error', (error) => {
      settle({ how: closedByClient ? 'closed-by-client' : 'cut', error: error.message });
      reject(error);
    });
    req.end();
  });
}

/** One connection of a follower. */
export interface FollowerConnection {
  openedAt: number;
  status: number;
  /** The balancer's X-Served-By, when there is one. */
  servedBy: string | undefined;
  /** The Last-Event-ID it was opened with. */
  resumedAfter: bigint | undefined;
  /** Index in `events` of its first event. */
  firstEvent: number;
  end?: StreamEnd;
  endedAt?: number;
}

export interface FeedFollower {
  /** Every event received, over every connection, in the order received. */
  events: FeedEvent[];
  connections: FollowerConnection[];
  /** Connection attempts that failed before an answer (refused, reset), with the error. */
  failedAttempts: string[];
  lastId(): bigint | undefined;
  /** The connection that is open now, if any. */
  current(): FollowerConnection | undefined;
  /** Stops following; resolves once the open stream is closed. */
  stop(): Promise<void>;
}

export interface FollowOptions extends Pick<StreamOptions, 'since' | 'lastEventId' | 'apiKey'> {
  /** How long to wait before reconnecting (an EventSource waits the `retry:` the server sent). */
  reconnectDelayMs: number;
  /** The response header that names the instance (haproxy.ts SERVED_BY_HEADER). */
  servedByHeader?: string;
}

/**
 * A subscriber that stays subscribed, as an EventSource does: it opens the stream (after `since`, or with
 * `lastEventId` as `Last-Event-ID`, the first time), and whenever it ends, is cut, or could not be opened, opens it
 * again after `reconnectDelayMs` with `Last-Event-ID` set to the last event it received (or as the first time if
 * none came yet).
 */
export function followFeed(baseUrl: string, options: FollowOptions): FeedFollower {
  const events: FeedEvent[] = [];
  const connections: FollowerConnection[] = [];
  const failedAttempts: string[] = [];
  let stopped = false;
  let open: EventStream | undefined;
  let wake: () => void = () => {};
  const lastId = () => events.at(-1)?.id ?? options.lastEventId;
  const loop = (async () => {
    while (!stopped) {
      const resumeAfter = lastId();
      try {
        const stream = await openEventStream(baseUrl, {
          ...(resumeAfter === undefined
            ? options.since === undefined
              ? {}
              : { since: options.since }
            : { lastEventId: resumeAfter }),
          ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
          onEvent: (event) => events.push(event),
        });
        open = stream;
        const served =
          options.servedByHeader === undefined ? undefined : stream.headers[options.servedByHeader];
        const connection: FollowerConnection = {
          openedAt: stream.openedAt,
          status: stream.status,
          servedBy: typeof served === 'string' ? served : undefined,
          resumedAfter: resumeAfter,
          firstEvent: events.length,
        };
        connections.push(connection);
        if (stopped) stream.close();
        connection.end = await stream.ended;
        connection.endedAt = performance.now();
        open = undefined;
      } catch (error) {
        failedAttempts.push(error instanceof Error ? error.message : String(error));
      }
      if (stopped) break;
      await Promise.race([sleep(options.reconnectDelayMs), new Promise<void>((resolve) => (wake = resolve))]);
    }
  })();
  return {
    events,
    connections,
    failedAttempts,
    lastId,
    current: () => {
      const last = connections.at(-1);
      return last !== undefined && last.end === undefined ? last : undefined;
    },
    async stop() {
      stopped = true;
      open?.close();
      wake();
      await loop;
    },
  };
}

/** Polls `condition` every 20 ms until it holds; false if `timeoutMs` passed first. */
export async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** The outbox as the database holds it: event ids (in order) and the pet of each; rows not numbered yet are left out. */
export async function readOutbox(
  databaseUrl: string,
  after = 0n,
): Promise<{ ids: bigint[]; petIds: bigint[]; petsWithoutEvent: number; petsWithSeveral: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Ordered by the bigint column, not by its text (where '9999' > '10000').
    const { rows } = await client.query<{ event_id: string; pet_id: string }>(
      'select e.id::text as event_id, e.pet_id::text as pet_id from pet_events as e where e.id > $1 order by e.id',
      [String(after)],
    );
    const { rows: counts } = await client.query<{ without: number; several: number }>(
      `select (select count(*)::int from pets p where not exists (select 1 from pet_events e where e.pet_id = p.id)) as without,
              (select count(*)::int from (select pet_id from pet_events group by pet_id having count(*) > 1) as d) as several`,
    );
    return {
      ids: rows.map((row) => BigInt(row.event_id)),
      petIds: rows.map((row) => BigInt(row.pet_id)),
      petsWithoutEvent: counts[0]?.without ?? 0,
      petsWithSeveral: counts[0]?.several ?? 0,
    };
  } finally {
    await client.end();
  }
}

/**
 * Waits until every committed pet has its event: creating a pet writes none, and a hub's sequencer writes them in
 * commit order when it next reads (woken, or at its poll). Every pet this statement sees is committed; not only those
 * below the cluster's oldest running transaction (the sequencer's own bound), which a transaction of another test's
 * database holds back: the wait then ended with the newest pets still unnumbered. False on timeout.
 */
export async function waitUntilSequenced(databaseUrl: string, timeoutMs: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from pets p, pet_event_horizon h
         where (p.txid, p.id) > (h.sequenced_txid, h.sequenced_pet_id)`,
      );
      if ((rows[0]?.n ?? 0) === 0) return true;
      if (Date.now() > deadline) return false;
      await sleep(20);
    }
  } finally {
    await client.end();
  }
}

/** The id of the newest event in the outbox (0 when it is empty). */
export async function outboxHead(databaseUrl: string): Promise<bigint> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ head: string }>(
      'select coalesce(max(id), 0)::text as head from pet_events',
    );
    return BigInt(rows[0]?.head ?? '0');
  } finally {
    await client.end();
  }
}

/**
 * What is wrong with `received` (a subscriber's events, in the order it got them) as the outbox's events after
 * its starting point, `expected`: exactly the same ids in the same order: none missing (a gap), none twice, none
 * out of order, none the outbox does not hold; and each event's pet the outbox's. Empty when it is right.
 */
export function compareWithOutbox(
  who: string,
  received: readonly FeedEvent[],
  expected: { ids: readonly bigint[]; petIds: readonly bigint[] },
): string[] {
  const problems: string[] = [];
  const seen = new Set<bigint>();
  let previous: bigint | undefined;
  for (const event of received) {
    if (seen.has(event.id)) problems.push(`${who}: event ${event.id} received twice`);
    else if (previous !== undefined && event.id < previous)
      problems.push(`${who}: event ${event.id} received after ${previous} (out of order)`);
    seen.add(event.id);
    previous = event.id;
  }
  const expectedPet = new Map(expected.ids.map((id, index) => [id, expected.petIds[index]]));
  const missing = expected.ids.filter((id) => !seen.has(id));
  if (missing.length > 0) {
    // Where the first gap is: the events received around it.
    const first = missing[0] as bigint;
    const after = received.findIndex((event) => event.id > first);
    const around = received
      .slice(Math.max(0, after - 2), after + 2)
      .map((event) => String(event.id))
      .join(', ');
    problems.push(
      `${who}: ${missing.length} of the outbox's ${expected.ids.length} events never received (first: ${missing.slice(0, 5).join(', ')}; received around it: ${around || 'nothing after it'})`,
    );
  }
  const unknown = received.filter((event) => !expectedPet.has(event.id));
  if (unknown.length > 0)
    problems.push(
      `${who}: ${unknown.length} events the outbox does not hold (first: ${unknown
        .slice(0, 5)
        .map((event) => event.id)
        .join(', ')})`,
    );
  const wrongPet = received.filter(
    (event) => expectedPet.has(event.id) && expectedPet.get(event.id) !== event.pet.id,
  );
  if (wrongPet.length > 0)
    problems.push(`${who}: ${wrongPet.length} events carry another pet than the outbox row`);
  return problems.slice(0, 20);
}

/** The `fraction` quantile of `values` (nearest rank); NaN when there are none. */
function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

/** `p50 3.1 ms, p99 12.4 ms (n=480)` */
export function latencyFigure(values: readonly number[]): string {
  if (values.length === 0) return 'no samples';
  return `p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms (n=${values.length})`;
}

export const MIB = 1024 * 1024;
