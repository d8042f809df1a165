import superjson from 'superjson';

// tRPC's data transformer: superjson, which carries bigint (int64 stays exact). On the way out, superjson's generic
// walk was the largest cost of a tRPC list (bench/PROFILE.md); our outputs are plain JSON plus bigint, so they are
// written in its format here, and anything else by superjson itself.

const UNSUPPORTED = Symbol('unsupported');

/** superjson's escaping of a key inside a meta path. */
const escapeKey = (key: string | number) => String(key).replace(/\\/g, '\\\\').replace(/\./g, '\\.');

function walk(value: unknown, path: string, bigints: Record<string, ['bigint']>): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // NaN, ±Infinity and -0 need superjson's annotations.
      return Number.isFinite(value) && !Object.is(value, -0) ? value : UNSUPPORTED;
    case 'bigint':
      if (path === '') return UNSUPPORTED; // a bare bigint has a different meta shape
      bigints[path] = ['bigint'];
      return value.toString();
    case 'object': {
      if (value === null) return null;
      const prefix = path === '' ? '' : `${path}.`;
      if (Array.isArray(value)) {
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = walk(value[i], `${prefix}${i}`, bigints);
          if (item === UNSUPPORTED) return UNSUPPORTED;
          out[i] = item;
        }
        return out;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return UNSUPPORTED;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const item = walk((value as Record<string, unknown>)[key], `${prefix}${escapeKey(key)}`, bigints);
        if (item === UNSUPPORTED) return UNSUPPORTED;
        out[key] = item;
      }
      return out;
    }
    default:
      return UNSUPPORTED;
  }
}

/** superjson.serialize for plain JSON values with bigints, without its generic machinery. */
export function serializeOutput(value: unknown): ReturnType<typeof superjson.serialize> {
  const bigints: Record<string, ['bigint']> = {};
  const json = walk(value, '', bigints);
  if (json === UNSUPPORTED) return superjson.serialize(value);
  if (Object.keys(bigints).length === 0) return { json: json as never };
  return { json: json as never, meta: { values: bigints, v: 1 } as never };
}

export const transformer = {
  input: superjson,
  output: { serialize: serializeOutput, deserialize: superjson.deserialize },
};
