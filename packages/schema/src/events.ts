import * as z from 'zod/mini';
import { INT64_MAX, int64Between, PositiveInt64Schema } from './int64.js';
import { integerFromText } from './json.js';
import { PetSchema } from './pet.js';

/** The kinds of event the change feed carries (`event:` of each Server-Sent Event). */
export const PET_EVENT_KINDS = ['pet.created'] as const;
export type PetEventKind = (typeof PET_EVENT_KINDS)[number];

/** The REST request header a reconnecting EventSource sends (the WHATWG HTML standard's name). */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';

const EVENT_POSITION = `must be an event id: an integer from 0 to ${INT64_MAX}`;

/**
 * A position in the change feed: an event's id (a positive int64), or 0 for "before the first event". What `since`
 * and `Last-Event-ID` carry; events after it are delivered. Over tRPC a number or a bigint.
 */
export const EventPositionSchema = int64Between(0n, INT64_MAX, EVENT_POSITION, {
  spelled: EVENT_POSITION,
  missing: EVENT_POSITION,
});

/**
 * An event position from its text (`since=42`, `Last-Event-ID: 42`, tRPC's `lastEventId: "42"`): the integer it
 * spells by the one rule for integers in text (integerOfText, as a JSON number: `42` and `4.2e1` are 42), then
 * {@link EventPositionSchema}. One decoder for every transport.
 */
export const EventPositionTextSchema = z.pipe(
  z.transform((value: unknown) => (typeof value === 'string' ? integerFromText(value) : value)),
  EventPositionSchema,
);

/** One event of the change feed: its id (the feed's order), its kind, and the animal as it was stored. */
export const PetEventSchema = z
  .strictObject({
    id: PositiveInt64Schema.check(
      z.describe('The event id: increasing in the order the events were committed; resume after it.'),
    ),
    kind: z.enum(PET_EVENT_KINDS).check(z.describe('What happened: `pet.created`, an animal was added.')),
    pet: PetSchema,
  })
  .check(z.describe('One event of the change feed.'));
export type PetEvent = z.output<typeof PetEventSchema>;
