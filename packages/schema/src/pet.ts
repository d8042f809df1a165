import * as z from 'zod/mini';
import { Int64Schema, PositiveInt64Schema } from './int64.js';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

/** Availability of an animal. */
export const PetStatusSchema = z
  .enum(PET_STATUSES, {
    error: (issue) => {
      if (issue.input === undefined) return 'is required';
      const hint = issue.input === null ? ' (omit the field to leave it unset; null is not a status)' : '';
      return `must be one of ${PET_STATUSES.join(', ')}${hint}`;
    },
  })
  .check(z.describe('Availability of an animal (case-sensitive).'));
export type PetStatus = z.output<typeof PetStatusSchema>;

/**
 * Longest accepted name, in Unicode code points (characters): what zod's `max`, JSON Schema's `maxLength` and
 * PostgreSQL's `char_length` all count, so the rule, the document and the database agree. 255 emoji (510 UTF-16
 * code units) fit; 256 characters of any kind do not. The interface leaves the bound open.
 */
export const PET_NAME_MAX_LENGTH = 255;

/**
 * A character that is neither Unicode White_Space (which includes U+0085 NEXT LINE, unlike JavaScript's `\s` and
 * `trim`), nor a default-ignorable one (U+FEFF, U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER...: invisible by
 * definition), nor a control (Cc: U+0001 to U+001F, U+007F to U+009F, which show nothing or act on a terminal,
 * like ESC): a name made only of those shows nothing. Unassigned code points count as visible: one this Node's
 * Unicode does not know yet may be a client's new emoji.
 */
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}]/u;

/**
 * The animal's name, stored and returned exactly as sent (never trimmed or normalised). Our decisions where
 * the interface is silent: 1..255 characters, at least one of them visible (not Unicode White_Space,
 * default-ignorable or a control), valid Unicode (no lone
 * surrogates) and no NUL character, which PostgreSQL text cannot hold. Names need not be unique.
 */
export const PetNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .check(
    z.minLength(1, { error: 'must not be empty', abort: true }),
    z.maxLength(PET_NAME_MAX_LENGTH, {
      error: `must be at most ${PET_NAME_MAX_LENGTH} characters long`,
      abort: true,
    }),
    z.refine(
      (name) => VISIBLE.test(name),
      'must contain a visible character, not only whitespace or control characters',
    ),
    z.refine(
      (name) => name.isWellFormed() && !name.includes('\u0000'),
      'must be valid Unicode text without NUL characters',
    ),
  );

const objectError = (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : 'must be a JSON object';

/**
 * Request body of createPet. Unknown fields are refused rather than dropped, so a misspelt field
 * (`stauts`) or a client-chosen `id` is an error the caller sees instead of a silent surprise.
 */
export const NewPetSchema = z
  .strictObject(
    {
      name: PetNameSchema.check(
        z.describe(
          "The animal's name. 1 to 255 characters (Unicode code points), not only whitespace or controls, valid Unicode " +
            'without NUL. Stored and returned exactly as sent (never trimmed or normalised); need not be unique.',
        ),
      ),
      categoryId: Int64Schema.check(
        z.describe('Identifier of the category the animal belongs to. Exact over the whole int64 range.'),
      ),
      status: z
        .optional(PetStatusSchema)
        .check(
          z.describe('Availability of the animal. Optional: omit it to leave it unset (`null` is refused).'),
        ),
    },
    { error: objectError },
  )
  .check(
    z.describe(
      'Request body of createPet. Unknown fields (a misspelt `stauts`, a client-chosen `id`) are refused with ' +
        '400 rather than ignored.',
    ),
  );
/** A validated NewPet (int64 fields are `bigint`). */
export type NewPet = z.output<typeof NewPetSchema>;
/** What a caller may pass as a NewPet (int64 fields as `number` or `bigint`). */
export type NewPetInput = z.input<typeof NewPetSchema>;

/**
 * An animal as the service returns it: every NewPet field plus the `id` the service assigned.
 * `status` is absent, never `null`, when the animal has none.
 */
export const PetSchema = z
  .strictObject(
    {
      id: PositiveInt64Schema.check(
        z.describe('Unique identifier assigned by the service on creation (a positive int64).'),
      ),
      name: PetNameSchema.check(z.describe("The animal's name, exactly as it was sent.")),
      categoryId: Int64Schema.check(z.describe('Identifier of the category the animal belongs to.')),
      status: z
        .optional(PetStatusSchema)
        .check(
          z.describe(
            'Availability of the animal. Absent (never `null`) when the animal was created without one.',
          ),
        ),
    },
    { error: objectError },
  )
  .check(z.describe('An animal as the service returns it.'));
export type Pet = z.output<typeof PetSchema>;
export type PetInput = z.input<typeof PetSchema>;

/** The body of listPets: a bare JSON array of Pet. */
export const PetsSchema = z
  .array(PetSchema, { error: 'must be a JSON array' })
  .check(
    z.describe('The body of listPets: a bare JSON array of Pet, ordered by `id` ascending (oldest first).'),
  );
export type Pets = z.output<typeof PetsSchema>;

/** One page of pets (tRPC `pets.page`): the pets, and the cursor of the next page or null on the last one. */
export const PetsPageSchema = z.strictObject({
  items: PetsSchema,
  nextCursor: z.nullable(z.string()),
});
export type PetsPage = z.output<typeof PetsPageSchema>;
