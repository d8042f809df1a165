import * as z from 'zod/mini';

/** Smallest and largest values of a signed 64-bit integer (`format: int64` in the interface). */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * An int64 from `min` to `max`: a safe-integer `number` or a `bigint` in, a `bigint` out, never rounded on the way.
 * `range` is the message past either bound; `spelled` for anything that is no integer, `missing` for no value.
 */
export function int64Between(
  min: bigint,
  max: bigint,
  range: string,
  {
    spelled = 'must be an integer (int64)',
    missing = 'is required',
  }: { spelled?: string; missing?: string } = {},
) {
  return z.pipe(
    z.pipe(
      z.union([z.int({ error: spelled }), z.bigint({ error: spelled })], {
        error: (issue) => (issue.input === undefined ? missing : spelled),
      }),
      z.transform((value: number | bigint) => BigInt(value)),
    ),
    z.bigint().check(z.gte(min, range), z.lte(max, range)),
  );
}

/**
 * An int64 value. JavaScript numbers are exact only up to 2^53, so int64 values are `bigint` once parsed:
 * inputs may be a safe-integer `number` or a `bigint`, the output is always a `bigint`, and a value is never
 * rounded on the way. JSON text carrying larger integers must be read with {@link parseJson} (which keeps
 * them exact) instead of `JSON.parse` (which rounds them before any schema sees them).
 */
export const Int64Schema = int64Between(
  INT64_MIN,
  INT64_MAX,
  `must be an integer between ${INT64_MIN} and ${INT64_MAX} (int64)`,
);

/**
 * A positive int64, the form of every identifier the service assigns. One message for every integer out of
 * range, below 1 or past 2^63-1 alike.
 */
export const PositiveInt64Schema = int64Between(
  1n,
  INT64_MAX,
  `must be a positive integer (1 to ${INT64_MAX})`,
);

export type Int64 = z.output<typeof Int64Schema>;
export type Int64Input = z.input<typeof Int64Schema>;
