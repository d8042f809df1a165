import { z } from 'zod';
import { Int64Schema, PositiveInt64Schema } from './int64.js';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

/** Availability of an animal. */
export const PetStatusSchema = z.enum(PET_STATUSES, {
  error: (issue) => {
    if (issue.input === undefined) return 'is required';
    const hint = issue.input === null ? ' (omit the field to leave it unset; null is not a status)' : '';
    return `must be one of ${PET_STATUSES.join(', ')}${hint}`;
  },
});
export type PetStatus = z.output<typeof PetStatusSchema>;

/** Longest accepted name, in UTF-16 code units (JavaScript string length). The interface leaves it open. */
export const PET_NAME_MAX_LENGTH = 255;

/**
 * The animal's name, stored and returned exactly as sent (never trimmed or normalised). Our decisions where
 * the interface is silent: 1..255 characters, at least one of them not whitespace, valid Unicode (no lone
 * surrogates) and no NUL character, which PostgreSQL text cannot hold. Names need not be unique.
 */
export const PetNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .min(1, { error: 'must not be empty', abort: true })
  .max(PET_NAME_MAX_LENGTH, { error: `must be at most ${PET_NAME_MAX_LENGTH} characters long`, abort: true })
  .refine((name) => name.trim().length > 0, 'must contain a character other than whitespace')
  .refine(
    (name) => name.isWellFormed() && !name.includes('\u0000'),
    'must be valid Unicode text without NUL characters',
  );

const objectError = (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : 'must be a JSON object';

/**
 * Request body of createPet. Unknown fields are refused rather than dropped, so a misspelt field
 * (`stauts`) or a client-chosen `id` is an error the caller sees instead of a silent surprise.
 */
export const NewPetSchema = z.strictObject(
  {
    name: PetNameSchema,
    categoryId: Int64Schema,
    status: PetStatusSchema.optional(),
  },
  { error: objectError },
);
/** A validated NewPet (int64 fields are `bigint`). */
export type NewPet = z.output<typeof NewPetSchema>;
/** What a caller may pass as a NewPet (int64 fields as `number` or `bigint`). */
export type NewPetInput = z.input<typeof NewPetSchema>;

/**
 * An animal as the service returns it: every NewPet field plus the `id` the service assigned.
 * `status` is absent, never `null`, when the animal has none.
 */
export const PetSchema = z.strictObject(
  {
    id: PositiveInt64Schema,
    name: PetNameSchema,
    categoryId: Int64Schema,
    status: PetStatusSchema.optional(),
  },
  { error: objectError },
);
export type Pet = z.output<typeof PetSchema>;
export type PetInput = z.input<typeof PetSchema>;

/** The body of listPets: a bare JSON array of Pet. */
export const PetsSchema = z.array(PetSchema, { error: 'must be a JSON array' });
export type Pets = z.output<typeof PetsSchema>;
