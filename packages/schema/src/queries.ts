import * as z from 'zod/mini';
import { EventPositionSchema } from './events.js';
import { PositiveInt64Schema } from './int64.js';
import { integerFromText } from './json.js';
import { PetStatusSchema } from './pet.js';

/** Bounds and default of listPets' `limit`, as the interface fixes them. */
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** Longest cursor accepted; longer text is refused before anything decodes it. */
export const CURSOR_MAX_LENGTH = 512;

/**
 * A paging cursor as the client sees it: opaque text it got from a `Link: <...>; rel="next"` header or a
 * `nextCursor`, never built by hand. Only its length is checked here; the service decodes and verifies it.
 */
export const CursorSchema = z
  .string()
  .check(
    z.minLength(1, 'must not be empty (omit the parameter for the first page)'),
    z.maxLength(CURSOR_MAX_LENGTH, `must be at most ${CURSOR_MAX_LENGTH} characters`),
  );

const CURSOR_DESCRIPTION =
  'Opaque position from the previous page (the `cursor` of its `Link: <...>; rel="next"` URL, or tRPC ' +
  '`nextCursor`). Absent: the first page. Bound to the `status` filter it was made for (another `status` is 400) but ' +
  'not to `limit`. A cursor that is malformed, truncated, tampered with or not ours is 400 `validation_failed`.';

const limitMessage = `must be an integer between ${LIST_LIMIT.min} and ${LIST_LIMIT.max}`;

export const ListLimitSchema = z._default(
  z
    .int({ error: limitMessage })
    .check(z.gte(LIST_LIMIT.min, limitMessage), z.lte(LIST_LIMIT.max, limitMessage)),
  LIST_LIMIT.default,
);

/**
 * The listPets query as typed values (what tRPC and the clients pass). An absent `limit` means 20, an absent
 * `status` means every status. Unknown keys are refused: a caller sending `offset` must learn that it is not
 * supported rather than receive the first page again.
 */
export const ListPetsQuerySchema = z.strictObject({
  limit: ListLimitSchema.check(
    z.describe(
      'Maximum number of animals returned, 1 to 100. An integer in any number spelling that denotes it exactly ' +
        '(`10`, `10.0`, `1e1`), as in JSON: `0`, `101`, `1.5`, `abc`, an empty value or the parameter given ' +
        'twice are refused with 400.',
    ),
  ),
  status: z
    .optional(PetStatusSchema)
    .check(
      z.describe(
        'Keeps only animals with this status. An unknown value is refused with 400 (values are case-sensitive).',
      ),
    ),
  cursor: z.optional(CursorSchema).check(z.describe(CURSOR_DESCRIPTION)),
});
export type ListPetsQuery = z.output<typeof ListPetsQuerySchema>;
export type ListPetsQueryInput = z.input<typeof ListPetsQuerySchema>;

/**
 * The input of tRPC's `pets.page`: the listPets query, plus the `direction` that tRPC's TanStack Query integration
 * (`trpc.pets.page.infiniteQueryOptions(...)`) adds to every page it asks for. Pages only go forward (ids
 * ascending), so `forward` is the one value accepted; anything else is refused like any bad field.
 */
export const PetsPageQuerySchema = z.extend(ListPetsQuerySchema, {
  direction: z
    .optional(z.literal('forward', { error: 'must be forward (pages only go forward)' }))
    .check(z.describe("Set by TanStack Query's infinite queries; only `forward` is accepted.")),
});

/** What a parameter given more than once is told, wherever a repeat is refused (the api's query reader too). */
export const GIVEN_ONCE = 'must be given at most once';

/**
 * One query-string parameter: refused when repeated (`?limit=1&limit=2` has no single meaning), otherwise
 * decoded from text by `decode` and checked by the typed schema, so the rule and its message live in one place.
 */
function queryParameter<T extends z.ZodMiniType>(
  schema: T,
  decode: (text: string) => unknown = (text) => text,
) {
  return z.pipe(
    z.transform((value: unknown, ctx) => {
      if (Array.isArray(value)) {
        ctx.issues.push({ code: 'custom', message: GIVEN_ONCE, input: value });
        return z.NEVER;
      }
      return typeof value === 'string' ? decode(value) : value;
    }),
    schema,
  );
}

/**
 * The query string of an operation whose typed input is `typed`: each parameter is the typed field itself (its rule,
 * message and description), read from its URL text by `decode` where the field is a number, and refused when given
 * twice. One declaration per field: a field added to the typed input is a query parameter too (but those in `omit`,
 * which another part of the request carries), so REST and tRPC cannot judge it differently.
 */
function searchParamsOf<Shape extends Record<string, z.ZodMiniType>, Omitted extends keyof Shape = never>(
  typed: { shape: Shape },
  decoders: { [Name in keyof Shape]?: (text: string) => unknown },
  omit: readonly Omitted[] = [],
) {
  const shape = Object.fromEntries(
    Object.entries(typed.shape)
      .filter(([name]) => !omit.includes(name as Omitted))
      .map(([name, schema]) => [name, queryParameter(schema, decoders[name])]),
  ) as { [Name in Exclude<keyof Shape, Omitted>]: ReturnType<typeof queryParameter<Shape[Name]>> };
  return z.strictObject(shape);
}

/**
 * The listPets query as it arrives in a URL (string values, possibly repeated), decoded to {@link ListPetsQuery}.
 * `limit` is read as a JSON number is (integerOfText), so `10.0` and `1e1` are 10 here as over tRPC, while
 * `1.5`, `0x10` and `abc` are refused.
 */
export const ListPetsSearchParamsSchema = searchParamsOf(ListPetsQuerySchema, { limit: integerFromText });

/**
 * getPet's `{petId}` path segment, decoded to the id. It must spell a positive int64 (integerOfText, as a JSON
 * number: `8` and `8e0` are 8): `abc`, `0`, `-1`, `1.5` and values past 2^63-1 are refused (they can name no pet).
 */
export const PetIdPathSchema = z.pipe(
  z.transform((value: unknown) => (typeof value === 'string' ? integerFromText(value) : value)),
  PositiveInt64Schema,
);

const SINCE_DESCRIPTION =
  'Deliver the events after this event id (`0`: every event still kept). Absent, with no `Last-Event-ID`: only ' +
  'events committed after the stream opened. An id older than what the service keeps, or past the last event, ' +
  'is 410 `events_expired`.';
const LAST_EVENT_ID_DESCRIPTION =
  "The id of the last event received, as text (what an EventSource's `Last-Event-ID` header and tRPC's " +
  'reconnecting subscription send): resume after it. It wins over `since` (a reconnect keeps the input it opened ' +
  'with); one before `since` is 400.';

/** The change feed's query as typed values (tRPC's `pets.events` input; REST reads `Last-Event-ID` into it). */
export const PetEventsQuerySchema = z.strictObject({
  status: z
    .optional(PetStatusSchema)
    .check(
      z.describe('Delivers only events of animals with this status; ids still advance past the others.'),
    ),
  since: z.optional(EventPositionSchema).check(z.describe(SINCE_DESCRIPTION)),
  // Text, as sent: decoded by the service (EventPositionTextSchema), the same function for both transports.
  lastEventId: z.optional(z.nullable(z.string())).check(z.describe(LAST_EVENT_ID_DESCRIPTION)),
});

/**
 * The change feed's query as it arrives in a URL: each parameter at most once, `since` by the integer rule (as
 * EventPositionTextSchema reads Last-Event-ID and tRPC's lastEventId); `lastEventId` is a header on REST.
 */
export const PetEventsSearchParamsSchema = searchParamsOf(PetEventsQuerySchema, { since: integerFromText }, [
  'lastEventId',
]);
