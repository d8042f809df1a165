// The one check both clients make on an input before writing it (a JSON body or URL over REST, superjson over
// tRPC): where the contract expects an int64, a `number` the wire would alter is refused: an integer past 2^53 is
// already rounded (2 ** 60 would be written 1152921504606847000) and NaN or Infinity would travel as null, so the
// service could only ever see another value. Everything else, a fraction included (written as given, and refused
// by the service), is left to the service, which checks inputs with one message for every transport.
import type * as z from 'zod/mini';

interface WalkedDef {
  type: string;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
}

const defOf = (schema: z.core.$ZodType) => schema._zod.def as WalkedDef;

/** Whether a schema's output is a bigint: every int64 of the contract, and nothing else, parses to one. */
function isInt64(schema: z.core.$ZodType): boolean {
  const def = defOf(schema);
  if (def.type === 'pipe' && def.out) return isInt64(def.out);
  if (def.innerType) return isInt64(def.innerType);
  return def.type === 'bigint';
}

/**
 * Throws a TypeError naming the field when `value` (an operation's input, as the caller gave it) has a number that
 * is not a safe integer where `schema` (the operation's input schema from the contract) expects an int64.
 */
export function assertExactInt64(schema: z.core.$ZodType, value: unknown, field = 'input'): void {
  const def = defOf(schema);
  if (isInt64(schema)) {
    if (
      typeof value === 'number' &&
      (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
    ) {
      throw new TypeError(
        `${field} is an int64: pass a bigint or a safe-integer number, not ${value} (a number past 2^53 is ` +
          'already rounded, and NaN or Infinity would be sent as null)',
      );
    }
  } else if (def.innerType) {
    assertExactInt64(def.innerType, value, field);
  } else if (def.type === 'pipe' && def.in) {
    assertExactInt64(def.in, value, field);
  } else if (def.shape && typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(def.shape)) {
      assertExactInt64(
        item,
        (value as Record<string, unknown>)[key],
        field === 'input' ? key : `${field}.${key}`,
      );
    }
  }
}
