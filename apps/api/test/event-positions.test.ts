// Where a change-feed stream resumes when the client names its position in more than one place, on both
// transports, over the real app: generated combinations of every source each transport reads, against the one
// rule (src/events/stream-pet-events.ts resumePosition; docs/interface-decisions.md, the change feed):
// - positions fixed when the stream was opened: `since`, then (tRPC) the input's `lastEventId`;
// - the position an EventSource adds when it reconnects: the `Last-Event-ID` header, or (tRPC, as tRPC itself reads
//   them, for EventSource polyfills that cannot send headers) the `lastEventId` or `Last-Event-Id` query parameter.
// The reconnect's sources must agree with each other, and each later position may not be before an earlier one;
// otherwise 400 validation_failed naming both. The stream resumes after the latest position given.
import { type Pet, PetEventSchema, PetSchema, parseJson } from '@petstore/schema';
import fc from 'fast-check';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/http.js';
import { openSse, type SseStream } from './support/sse.js';
import { startTestServer, TEST_API_KEY, type TestServer } from './support/test-server.js';

const AUTH = { authorization: `Bearer ${TEST_API_KEY}` };

/** Each source, as the messages name it. */
const NAMES = {
  since: 'since',
  input: 'lastEventId (input)',
  header: 'Last-Event-ID header',
  query: 'lastEventId query parameter',
  queryDashed: 'Last-Event-Id query parameter',
} as const;
type Source = keyof typeof NAMES;
type Positions = Partial<Record<Source, bigint>>;

/** The verdict the rule gives: a 400 naming two sources, or the position the stream resumes after. */
function expected(positions: Positions): { refused: [Source, Source] } | { after: bigint | undefined } {
  const reconnect = (['header', 'query', 'queryDashed'] as const).filter((s) => positions[s] !== undefined);
  for (const other of reconnect.slice(1)) {
    if (positions[other] !== positions[reconnect[0] as Source])
      return { refused: [reconnect[0] as Source, other] };
  }
  const chain = (['since', 'input', reconnect[0]] as const).filter(
    (s): s is Source => s !== undefined && positions[s] !== undefined,
  );
  for (let later = 1; later < chain.length; later++) {
    for (let earlier = 0; earlier < later; earlier++) {
      const [a, b] = [chain[earlier] as Source, chain[later] as Source];
      if ((positions[b] as bigint) < (positions[a] as bigint)) return { refused: [a, b] };
    }
  }
  const latest = chain.at(-1);
  return { after: latest === undefined ? undefined : positions[latest] };
}

describe('the change feed: a position given in several places', () => {
  let server: TestServer;
  /** Event ids in order: every one but the last has an event after it, so a stream from it answers at once. */
  let ids: bigint[];
  const open: SseStream[] = [];

  beforeAll(async () => {
    server = await startTestServer('pglite', 'event-positions');
    const created: Pet[] = [];
    for (let n = 0; n < 5; n++) {
      const reply = await call(server.baseUrl, '/pets', {
        method: 'POST',
        body: JSON.stringify({ name: `position ${n}`, categoryId: 1 }),
      });
      created.push(PetSchema.parse(reply.body));
    }
    const stream = await openSse(`${server.baseUrl}/pets/events?since=0`, AUTH);
    open.push(stream);
    ids = [];
    for (const event of await stream.take(created.length))
      ids.push(PetEventSchema.parse(parseJson(event.data)).id);
    stream.close();
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await server?.close();
  });

  /** The first thing a stream says: its first event's id, or the refusal's status and message. */
  const firstOf = async (stream: SseStream, trpc: boolean) => {
    open.push(stream);
    try {
      if (stream.status !== 200) return { status: stream.status };
      for (;;) {
        const [event] = await stream.take(1);
        if (event?.event === 'connected' || event?.event === 'ping') continue;
        if (event?.event === 'serialized-error' || event?.event === 'error') {
          const body = trpc
            ? superjson.deserialize<{ data: { error: { status: number; message: string } } }>(
                JSON.parse(event.data),
              ).data.error
            : (parseJson(event.data) as { status: number; message: string });
          return { status: body.status, message: body.message };
        }
        const data = trpc
          ? superjson.deserialize(JSON.parse(event?.data ?? ''))
          : parseJson(event?.data ?? '');
        return { status: 200, first: PetEventSchema.parse(data).id };
      }
    } finally {
      stream.close();
    }
  };

  const position = () => fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined });

  it('gives every combination of sources the one rule, over tRPC (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          since: position(),
          input: position(),
          header: position(),
          query: position(),
          queryDashed: position(),
        }),
        async (picked) => {
          const positions: Positions = {};
          for (const [source, index] of Object.entries(picked)) {
            if (index !== undefined) positions[source as Source] = ids[index] as bigint;
          }
          // Nothing named: from now, which has no event to wait for here.
          fc.pre(Object.keys(positions).length > 0);
          const input = {
            ...(positions.since === undefined ? {} : { since: positions.since }),
            ...(positions.input === undefined ? {} : { lastEventId: String(positions.input) }),
          };
          const query = [`input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`];
          if (positions.query !== undefined) query.push(`lastEventId=${positions.query}`);
          if (positions.queryDashed !== undefined) query.push(`Last-Event-Id=${positions.queryDashed}`);
          const headers =
            positions.header === undefined ? AUTH : { ...AUTH, 'last-event-id': String(positions.header) };
          const answer = await firstOf(
            await openSse(`${server.baseUrl}/trpc/pets.events?${query.join('&')}`, headers),
            true,
          );
          const verdict = expected(positions);
          if ('refused' in verdict) {
            expect(answer.status, JSON.stringify(picked)).toBe(400);
            for (const source of verdict.refused) expect(answer.message).toContain(NAMES[source]);
          } else {
            const next = ids.find((id) => id > (verdict.after as bigint));
            expect(answer, JSON.stringify(picked)).toEqual({ status: 200, first: next });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives since and Last-Event-ID the same rule over REST (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ since: position(), header: position() }), async (picked) => {
        const positions: Positions = {};
        if (picked.since !== undefined) positions.since = ids[picked.since] as bigint;
        if (picked.header !== undefined) positions.header = ids[picked.header] as bigint;
        fc.pre(Object.keys(positions).length > 0);
        const path = positions.since === undefined ? '/pets/events' : `/pets/events?since=${positions.since}`;
        const headers =
          positions.header === undefined ? AUTH : { ...AUTH, 'last-event-id': String(positions.header) };
        const answer = await firstOf(await openSse(`${server.baseUrl}${path}`, headers), false);
        const verdict = expected(positions);
        if ('refused' in verdict) {
          expect(answer.status, JSON.stringify(picked)).toBe(400);
        } else {
          const next = ids.find((id) => id > (verdict.after as bigint));
          expect(answer, JSON.stringify(picked)).toEqual({ status: 200, first: next });
        }
      }),
      { numRuns: 20 },
    );
    // The REST message names both, each as tRPC's names it (one wording; its body is read here, not by the stream
    // reader).
    const reply = await call(server.baseUrl, `/pets/events?since=${ids[2]}`, {
      headers: { 'last-event-id': String(ids[1]) },
    });
    expect(reply.status).toBe(400);
    expect((reply.body as { message: string }).message).toMatch(
      new RegExp(`^${NAMES.header} ${ids[1]} is before ${NAMES.since}=${ids[2]}: `),
    );
  });
});
