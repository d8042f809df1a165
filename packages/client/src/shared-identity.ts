// A program can load this package twice: its ESM build through `import` and its CommonJS build through
// `require()` (two dependencies, one of each kind), each with its own copy of every class. An error thrown by one
// copy then fails `instanceof` against the other, and `apiErrorOf()` returns undefined for a real 404.
// `Symbol.for` keys are shared by the whole realm, so a class branded here is recognised whichever copy made it.

type Constructor = abstract new (...args: never[]) => object;

/**
 * Makes `value instanceof Class` true for an instance made by any copy of `Class` that was given the same `key`
 * (`@petstore/client.<ClassName>`). Subclasses keep the ordinary prototype test.
 */
export function shareIdentity(Class: Constructor, key: string): void {
  const brand = Symbol.for(key);
  Object.defineProperty(Class.prototype, brand, { value: true });
  Object.defineProperty(Class, Symbol.hasInstance, {
    value(this: Constructor, value: unknown): boolean {
      if (this !== Class) return Function.prototype[Symbol.hasInstance].call(this, value);
      return (
        typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true
      );
    },
  });
}
