// The Add form's rules: the same NewPet model the service validates with, so the browser says what the server
// would, in the same words; and the server's 400 mapped back onto the fields it names.
import type { ApiError } from '@petstore/client';
import { type NewPet, NewPetSchema, PET_STATUSES, type PetStatus } from '@petstore/schema';

export const PET_FIELDS = ['name', 'categoryId', 'status'] as const;
export type PetField = (typeof PET_FIELDS)[number];
export type FieldErrors = Partial<Record<PetField, string>>;

/** What the form holds: text, as typed. */
export interface PetDraft {
  name: string;
  categoryId: string;
  /** '' for "no status". */
  status: PetStatus | '';
}

export const EMPTY_DRAFT: PetDraft = { name: '', categoryId: '', status: '' };

/**
 * An integer typed into a text field, as the model wants it: a `bigint` (every digit kept, so 2^53+1 stays
 * 2^53+1); undefined when empty; anything else as typed, for the model to refuse with its own message.
 */
export function int64FromText(text: string): bigint | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?[0-9]+$/.test(trimmed) ? BigInt(trimmed) : text;
}

export function isPetStatus(value: string): value is PetStatus {
  return (PET_STATUSES as readonly string[]).includes(value);
}

/** The draft checked by `NewPetSchema`: the pet to send, or one message per field (the first the model gives). */
export function validateDraft(draft: PetDraft): { pet: NewPet } | { errors: FieldErrors } {
  const result = NewPetSchema.safeParse({
    name: draft.name,
    categoryId: int64FromText(draft.categoryId),
    status: draft.status === '' ? undefined : draft.status,
  });
  if (result.success) return { pet: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && isField(field)) errors[field] ??= issue.message;
  }
  return { errors };
}

const isField = (name: string): name is PetField => (PET_FIELDS as readonly string[]).includes(name);

/**
 * The fields a `400 validation_failed` names, with the server's message for each. Its message lists the problems
 * as `<field>: <message>; <field>: <message>` (`describeIssues` in @petstore/schema); a problem that names no field
 * of this form is left to the caller, who shows the whole message.
 */
export function fieldErrorsOf(error: ApiError): FieldErrors {
  const errors: FieldErrors = {};
  if (error.code !== 'validation_failed') return errors;
  for (const part of error.message.split('; ')) {
    const match = /^([A-Za-z]+): (.+)$/.exec(part);
    const field = match?.[1];
    if (field !== undefined && isField(field) && match?.[2] !== undefined) errors[field] ??= match[2];
  }
  return errors;
}
