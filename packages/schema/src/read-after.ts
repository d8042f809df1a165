// Read-your-writes across read replicas (apps/api: DATABASE_READ_URL; docs/operations.md#read-replicas-and-read-your-writes).

/**
 * The header that carries a database position (a PostgreSQL WAL LSN, `16/B374D848`): the api returns it on
 * writes (where the primary's WAL was once the write committed), and our clients send the highest one they have
 * seen on every later request; the api then reads from a replica only once that replica has replayed past it,
 * else from the primary. Opaque to clients: compare with `laterReadPosition`, never parse.
 */
export const READ_AFTER_HEADER = 'Petstore-Read-After';

const POSITION = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** A position as a number (for comparing), or undefined when `text` is not one. */
export function parseReadPosition(text: string | null | undefined): bigint | undefined {
  const match = text == null ? null : POSITION.exec(text);
  if (match === null) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** The later of two positions (either may be absent or not a position); undefined when neither is one. */
export function laterReadPosition(a: string | undefined, b: string | null | undefined): string | undefined {
  const [left, right] = [parseReadPosition(a), parseReadPosition(b)];
  if (right === undefined) return left === undefined ? undefined : a;
  return left !== undefined && left >= right ? a : (b as string);
}
