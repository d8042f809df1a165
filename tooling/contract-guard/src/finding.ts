import type { StabilityLevel } from '@petstore/schema';

/** One difference between the released contract and the current one, and whom it breaks. */
export interface Finding {
  /**
   * `break`: someone's working code or calls stop working; needs a major version of `packages`.
   * `refused`: not allowed in any version (a deprecated operation removed before its sunset).
   * `compatible`: nobody who used the last release notices (new optional input, new operation, wider input, docs).
   */
  kind: 'break' | 'refused' | 'compatible';
  /** Who it breaks, in words: `REST consumers`, `TypeScript importers of @petstore/client`; `nobody`. */
  audience: string;
  /** The published packages that need a major version for it (none when compatible). */
  packages: string[];
  /** Which check found it. */
  surface: 'rest' | 'trpc' | 'typescript';
  /** Where: `createPet (POST /pets)`, `@petstore/schema export NewPetInput`. */
  where: string;
  /** What changed, in plain words. */
  what: string;
  /** A wording change only (descriptions, summaries, examples). */
  documentation: boolean;
  /** The operationId, when the difference is inside one operation. */
  operation?: string;
  /**
   * The level the operation had in the last release, which decides the version a break needs (gate.ts
   * `bumpForBreak`): absent for what is no operation's (the Error body, a TypeScript export), held as stable.
   */
  stability?: StabilityLevel;
}
