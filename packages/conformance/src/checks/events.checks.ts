// The change feed, `GET /pets/events` (streamPetEvents, beta): Server-Sent Events, one per pet created, in commit
// order, resumable by `since` or `Last-Event-ID`. The interface shows no events ("Events, webhooks or
// notifications: not shown"), so every check here enforces a decision of ours and runs under `reference` only.
//
// A stream may never end: every read is bounded (the run's per-request timeout, and each check stops reading once
// it has the events it waits for) and every stream a check opens is closed on every path. On a live deployment
// other writers add pets too: the checks follow their own pets among whatever else arrives, and hold every event
// they see (ours or not) to the framing and the order.
import { type Pet, type PetEvent, PetEventSchema, type PetStatus, parseJson } from '@petstore/schema';
import {
  type Check,
  type CheckContext,
  check,
  expectError,
  expectRefused,
  expectSamePet,
  fail,
} from '../check.js';
import type { Exchange, OpenStream, RequestOptions, ServerSentEvent } from '../http-client.js';

const DECISION = 'Decision: the change feed (GET /pets/events, Server-Sent Events, beta)';
const DECISION_AUTH = `${DECISION}; authentication (code "unauthorized" and WWW-Authenticate: Bearer realm="petstore")`;
const DECISION_RESUME = `${DECISION}: resuming (since, Last-Event-ID wins over since, one before since is 400)`;
const EVENTS = '/pets/events';

/** A received event, checked: its framing agrees with its data, a valid PetEvent. */
interface Received {
  event: PetEvent;
  raw: ServerSentEvent;
}

/** The event as a PetEvent: `id:` equal to its id, `event:` to its kind, `data:` one valid PetEvent. */
function decodeEvent(raw: ServerSentEvent, exchange: Exchange): PetEvent {
  const shown = JSON.stringify(raw).slice(0, 300);
  check(raw.event !== 'error', `the stream sent an error event: ${shown}`, exchange);
  let data: unknown;
  try {
    data = parseJson(raw.data);
  } catch (error) {
    fail(`an event's data is not JSON (${(error as Error).message}): ${shown}`, exchange);
  }
  const parsed = PetEventSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
      .join('; ');
    fail(`an event's data is not a valid PetEvent: ${issues}; event: ${shown}`, exchange);
  }
  const event = parsed.data;
  check(raw.id === String(event.id), `an event's id: field is not its data's id: ${shown}`, exchange);
  check(raw.event === event.kind, `an event's event: field is not its data's kind: ${shown}`, exchange);
  return event;
}

/** An open stream whose every event is decoded and held to the feed's order as it is read. */
interface Follower {
  readonly exchange: Exchange;
  /** Every event read so far, in order. */
  readonly received: Received[];
  /** Reads until `done` holds for an event read (it is returned); fails when the stream ends or times out first. */
  until(done: (received: Received) => boolean, waitingFor: string): Promise<Received>;
  close(): void;
}

function follower(stream: OpenStream, after: bigint | undefined): Follower {
  const { exchange } = stream;
  const received: Received[] = [];
  let last = after;
  return {
    exchange,
    received,
    close: () => stream.close(),
    async until(done, waitingFor) {
      for (;;) {
        const raw = await stream.next();
        if (raw === undefined) {
          const why = exchange.stream?.ended ? 'the stream ended' : 'no event came within the timeout';
          const ids = received.map(({ event }) => String(event.id)).join(', ');
          fail(`${why} before ${waitingFor} (events received: ${ids || 'none'})`, exchange);
        }
        const event = decodeEvent(raw, exchange);
        if (last !== undefined)
          check(
            event.id > last,
            `event ${event.id} came after ${last === after ? `the position ${after}` : `event ${last}`}: events must come once each, ids increasing`,
            exchange,
          );
        last = event.id;
        const item = { event, raw };
        received.push(item);
        if (done(item)) return item;
      }
    },
  };
}

/** Opens the feed, expecting 200 text/event-stream; `after` is the position it resumes after, if known. */
async function follow(
  ctx: CheckContext,
  query: string,
  after?: bigint,
  options: Omit<RequestOptions, 'raw' | 'body'> = {},
): Promise<Follower> {
  const stream = await ctx.http.openStream(`${EVENTS}${query}`, options);
  if (stream.exchange.stream === undefined || stream.exchange.status !== 200) {
    stream.close();
    fail(
      `expected 200 text/event-stream, got ${stream.exchange.status} ${stream.exchange.headers.get('content-type') ?? 'without Content-Type'}: ${stream.exchange.text.slice(0, 300)}`,
      stream.exchange,
    );
  }
  return follower(stream, after);
}

/** Runs `body` with the streams it opens, closing each on every path. */
async function withStreams<T>(body: (open: (follower: Follower) => Follower) => Promise<T>): Promise<T> {
  const opened: Follower[] = [];
  try {
    return await body((follower) => {
      opened.push(follower);
      return follower;
    });
  } finally {
    for (const follower of opened) follower.close();
  }
}

const STATUSES: Array<PetStatus | undefined> = ['available', 'pending', 'sold', undefined];

/** Creates `count` pets one after another (statuses in turn), each named for the check. */
async function createPets(ctx: CheckContext, purpose: string, count: number, status?: PetStatus) {
  const pets: Pet[] = [];
  for (let index = 0; index < count; index += 1) {
    const chosen = status ?? STATUSES[index % STATUSES.length];
    const { pet } = await ctx.fixtures.createPet({
      name: ctx.fixtures.uniqueName(purpose),
      categoryId: 38,
      ...(chosen === undefined ? {} : { status: chosen }),
    });
    pets.push(pet);
  }
  return pets;
}

const eventOf = (pet: Pet) => (received: Received) => received.event.pet.id === pet.id;

/**
 * The feed's position now: a marker pet created while following from now, and the id of its event. Every event
 * committed later has a greater id.
 */
async function currentPosition(ctx: CheckContext): Promise<{ position: bigint; marker: Received }> {
  return withStreams(async (open) => {
    const fromNow = open(await follow(ctx, ''));
    const [pet] = await createPets(ctx, 'events-marker', 1, 'pending');
    const marker = await fromNow.until(
      eventOf(pet as Pet),
      `the event of pet ${pet?.id}, created after it opened`,
    );
    expectSamePet(ctx, marker.event.pet, pet as Pet, fromNow.exchange);
    return { position: marker.event.id, marker };
  });
}

/** Our pets' events among `received`, in the order received: each pet exactly once, equal to what createPet said. */
function expectOnceEach(ctx: CheckContext, follower: Follower, pets: readonly Pet[]): Received[] {
  const ours = follower.received.filter(({ event }) => pets.some((pet) => pet.id === event.pet.id));
  const order = ours.map(({ event }) => String(event.pet.id)).join(', ');
  check(
    ours.length === pets.length && ours.every(({ event }, index) => event.pet.id === pets[index]?.id),
    `expected the events of pets ${pets.map((pet) => String(pet.id)).join(', ')} once each, in that order; got ${order || 'none'}`,
    follower.exchange,
  );
  ours.forEach(({ event }, index) => {
    expectSamePet(ctx, event.pet, pets[index] as Pet, follower.exchange);
    check(
      event.kind === 'pet.created',
      `event ${event.id} is ${event.kind}, not pet.created`,
      follower.exchange,
    );
  });
  return ours;
}

const INVALID_SINCE: Array<[label: string, query: string]> = [
  ['text', 'since=abc'],
  ['negative', 'since=-1'],
  ['decimal', 'since=1.5'],
  ['above-int64', 'since=9223372036854775808'],
  ['repeated', 'since=1&since=2'],
];

/** A refusal of the feed: asked with openStream, so a wrong 200 stream is closed at once, never read to its end. */
async function refused(ctx: CheckContext, query: string, options: Omit<RequestOptions, 'raw' | 'body'> = {}) {
  const stream = await ctx.http.openStream(`${EVENTS}${query}`, options);
  stream.close();
  return stream.exchange;
}

export const eventsChecks: Check[] = [
  {
    id: 'streamPetEvents.auth.missing-key',
    description:
      'GET /pets/events without Authorization is 401 unauthorized with WWW-Authenticate: Bearer realm="petstore", before anything else',
    decision: DECISION_AUTH,
    async run(ctx) {
      for (const query of ['', '?since=abc']) {
        const exchange = await refused(ctx, query, { auth: null });
        expectError(ctx, exchange, 401, 'unauthorized');
        const challenge = exchange.headers.get('www-authenticate');
        check(
          challenge !== null && /^bearer realm="petstore"$/i.test(challenge),
          `expected WWW-Authenticate: Bearer realm="petstore", got ${challenge ?? 'none'}`,
          exchange,
        );
      }
    },
  },
  {
    id: 'streamPetEvents.auth.wrong-key',
    description:
      'GET /pets/events with an unknown API key is 401 unauthorized with a Bearer error="invalid_token" challenge',
    decision: DECISION_AUTH,
    async run(ctx) {
      const exchange = await refused(ctx, '', { auth: 'Bearer not-a-key-conformance-0000' });
      expectError(ctx, exchange, 401, 'unauthorized');
      const challenge = exchange.headers.get('www-authenticate');
      check(
        challenge !== null && /^bearer realm="petstore", *error="invalid_token"$/i.test(challenge),
        `expected WWW-Authenticate: Bearer realm="petstore", error="invalid_token", got ${challenge ?? 'none'}`,
        exchange,
      );
    },
  },
  ...INVALID_SINCE.map(
    ([label, query]): Check => ({
      id: `streamPetEvents.since.invalid.${label}`,
      description: `GET /pets/events?${query} (not one event position, a non-negative int64) is 400 validation_failed`,
      decision: DECISION_RESUME,
      async run(ctx) {
        expectRefused(ctx, await refused(ctx, `?${query}`), 400, 'validation_failed');
      },
    }),
  ),
  {
    id: 'streamPetEvents.last-event-id.invalid',
    description: 'a Last-Event-ID that is not an event position (abc, -1) is 400 validation_failed',
    decision: DECISION_RESUME,
    async run(ctx) {
      for (const lastEventId of ['abc', '-1']) {
        const exchange = await refused(ctx, '', { headers: { 'last-event-id': lastEventId } });
        expectRefused(ctx, exchange, 400, 'validation_failed');
      }
    },
  },
  {
    id: 'streamPetEvents.last-event-id.before-since',
    description:
      'a Last-Event-ID before since (since=5, Last-Event-ID: 4) contradicts it: 400 validation_failed',
    decision: DECISION_RESUME,
    async run(ctx) {
      const exchange = await refused(ctx, '?since=5', { headers: { 'last-event-id': '4' } });
      expectRefused(ctx, exchange, 400, 'validation_failed');
    },
  },
  {
    id: 'streamPetEvents.status.invalid',
    description: 'GET /pets/events?status=lost (not a PetStatus) is 400 validation_failed',
    decision: DECISION,
    async run(ctx) {
      expectRefused(ctx, await refused(ctx, '?status=lost'), 400, 'validation_failed');
    },
  },
  {
    id: 'streamPetEvents.open',
    description:
      'GET /pets/events is 200 text/event-stream; charset=utf-8 with Cache-Control: no-store and X-Accel-Buffering: no (HEAD too, without a body)',
    decision: DECISION,
    async run(ctx) {
      for (const method of ['GET', 'HEAD']) {
        const stream = await ctx.http.openStream(EVENTS, { method });
        stream.close();
        const { exchange } = stream;
        check(
          exchange.status === 200,
          `${method} answered ${exchange.status}: ${exchange.text.slice(0, 300)}`,
          exchange,
        );
        const type = exchange.headers.get('content-type');
        check(
          type !== null && /^text\/event-stream\s*;\s*charset="?utf-8"?$/i.test(type),
          `expected Content-Type text/event-stream; charset=utf-8, got ${type ?? 'none'}`,
          exchange,
        );
        const cache = (exchange.headers.get('cache-control') ?? '').split(',').map((item) => item.trim());
        check(
          cache.includes('no-store'),
          `expected Cache-Control: no-store, got ${exchange.headers.get('cache-control') ?? 'none'}`,
          exchange,
        );
        check(
          exchange.headers.get('x-accel-buffering') === 'no',
          `expected X-Accel-Buffering: no, got ${exchange.headers.get('x-accel-buffering') ?? 'none'}`,
          exchange,
        );
        if (method === 'HEAD') check(exchange.text === '', 'HEAD answered with a body', exchange);
      }
    },
  },
  {
    id: 'streamPetEvents.delivers-created',
    description:
      'following from since=<a position>, five pets created one after another each arrive exactly once, in order, ids increasing, id: = data.id, event: = data.kind, data a PetEvent whose pet is what createPet returned',
    decision: DECISION,
    async run(ctx) {
      const { position } = await currentPosition(ctx);
      await withStreams(async (open) => {
        const since = open(await follow(ctx, `?since=${position}`, position));
        const pets = await createPets(ctx, 'events', 5);
        await since.until(eventOf(pets.at(-1) as Pet), 'the event of the last pet created');
        expectOnceEach(ctx, since, pets);
      });
    },
  },
  {
    id: 'streamPetEvents.from-now',
    description:
      'without since or Last-Event-ID, the stream starts from now: pets created (201) before it opened are not delivered, even one whose event nobody has read yet; one created after is',
    decision: DECISION,
    async run(ctx) {
      const { marker } = await currentPosition(ctx);
      // Committed (its 201 came back) before the stream opens, its event not yet seen by anyone: not "from now".
      const [before] = await createPets(ctx, 'events-before', 1);
      await withStreams(async (open) => {
        const fromNow = open(await follow(ctx, ''));
        const [pet] = await createPets(ctx, 'events-now', 1);
        await fromNow.until(eventOf(pet as Pet), `the event of pet ${pet?.id}, created after it opened`);
        check(
          !fromNow.received.some(({ event }) => event.id <= marker.event.id),
          `an event committed before the stream opened (id <= ${marker.event.id}) was delivered`,
          fromNow.exchange,
        );
        check(
          !fromNow.received.some(eventOf(before as Pet)),
          `the event of pet ${before?.id}, created (201) before the stream opened, was delivered`,
          fromNow.exchange,
        );
      });
    },
  },
  {
    id: 'streamPetEvents.since.zero',
    description:
      'since=0 starts at the oldest event still kept: its first event is a valid one, no later than a recent one',
    decision: DECISION,
    async run(ctx) {
      const { position } = await currentPosition(ctx);
      await withStreams(async (open) => {
        const all = open(await follow(ctx, '?since=0', 0n));
        const first = await all.until(() => true, 'its first event');
        check(
          first.event.id <= position,
          `the first event of since=0 is ${first.event.id}, after event ${position} that is still kept`,
          all.exchange,
        );
      });
    },
  },
  {
    id: 'streamPetEvents.resume.last-event-id',
    description:
      'reconnecting with Last-Event-ID: <the id of the 2nd of 5 events> (with the since it opened with, or alone) gives exactly the other 3, in order',
    decision: DECISION_RESUME,
    async run(ctx) {
      const { position } = await currentPosition(ctx);
      await withStreams(async (open) => {
        const first = open(await follow(ctx, `?since=${position}`, position));
        const pets = await createPets(ctx, 'events-resume', 5);
        await first.until(eventOf(pets[1] as Pet), 'the event of the 2nd pet');
        first.close();
        const resumeAt = (first.received.find(eventOf(pets[1] as Pet)) as Received).event.id;
        const rest = pets.slice(2);
        for (const query of [`?since=${position}`, '']) {
          const resumed = open(
            await follow(ctx, query, resumeAt, { headers: { 'last-event-id': String(resumeAt) } }),
          );
          await resumed.until(eventOf(rest.at(-1) as Pet), 'the event of the last pet created');
          expectOnceEach(ctx, resumed, rest);
        }
      });
    },
  },
  {
    id: 'streamPetEvents.status.filter',
    description:
      'status=sold delivers only the events of sold pets: of pets created with each status, only the sold ones arrive, in order',
    decision: DECISION,
    async run(ctx) {
      const { position } = await currentPosition(ctx);
      await withStreams(async (open) => {
        const sold = open(await follow(ctx, `?status=sold&since=${position}`, position));
        const pets = await createPets(ctx, 'events-status', 8);
        // A last sold pet: once its event arrives, every earlier one that matches has arrived (ids increase).
        const [last] = await createPets(ctx, 'events-status', 1, 'sold');
        await sold.until(eventOf(last as Pet), 'the event of the last sold pet');
        const other = sold.received.find(({ event }) => event.pet.status !== 'sold');
        if (other !== undefined)
          fail(
            `status=sold delivered event ${other.event.id} of a ${other.event.pet.status ?? 'status-less'} pet`,
            sold.exchange,
          );
        expectOnceEach(ctx, sold, [...pets.filter((pet) => pet.status === 'sold'), last as Pet]);
      });
    },
  },
];
