import {
  ERROR_CODES,
  ErrorSchema,
  Int64Schema,
  type NewPetInput,
  type OperationContract,
  type OperationId,
  operations,
  type Pet,
  PetSchema,
  PetStatusSchema,
  PetsSchema,
} from '@petstore/schema';
import { documentedStatuses } from '@petstore/schema/internal';
import * as z from 'zod/mini';
import type { Exchange, HttpClient, SentRequest } from './http-client.js';
import type { OpenApiDocument } from './openapi.js';

/**
 * What a run certifies. `interface`: only what the Pet Store interface requires; where it is silent, every
 * reasonable answer passes and only what no reading allows fails. `reference`: the interface plus every decision
 * this implementation documents (docs/interface-decisions.md), i.e. "behaves like the reference implementation".
 */
export type Profile = 'interface' | 'reference';
export const PROFILES: readonly Profile[] = ['interface', 'reference'];

/** Pets the checks need, made through the deployment's own createPet. */
export interface Fixtures {
  /** A name no other run has used: `conformance <run> <purpose> <n>`, so runs can repeat on a live database. */
  uniqueName(purpose: string): string;
  /** POST /pets with a JSON body, expecting 201 and a Pet. */
  createPet(newPet: NewPetInput): Promise<{ pet: Pet; exchange: Exchange }>;
  /**
   * Makes sure the deployment holds at least `count` pets (at most 100: listing has no paging), creating the
   * missing ones, so limit checks can expect exactly `limit` pets back. Pets are never deleted (the interface
   * has no delete), so this creates nothing on a deployment that already has data.
   */
  ensurePets(count: number): Promise<void>;
  /** One pet of this run, created on first use, for checks that need any existing pet. */
  samplePet(): Promise<Pet>;
  /**
   * Skips the calling check when createPet already answered wrongly in this run (one check reported it): for
   * checks that create pets themselves to test something else (int64, names, statuses).
   */
  dependOnCreate(): void;
}

/** Everything a check may use. It knows the deployment only through `http`. */
export interface CheckContext {
  http: HttpClient;
  fixtures: Fixtures;
  /** The run's seed; property-based checks derive theirs from it and the check id. */
  seed: number;
  /** How many generated cases each property-based check tries. */
  numRuns: number;
  /** Which profile this run certifies: checks relax what only a decision of ours requires under `interface`. */
  profile: Profile;
  /** The deployment's own OpenAPI document, when it publishes one (or `--openapi` names one). */
  openapi?: OpenApiDocument;
  /** Why there is no `openapi`, for the check that would have used it. */
  openapiUnavailable?: string;
}

/**
 * Where a check comes from. `spec`: the section of the interface it enforces (it runs in both profiles, and
 * under `interface` accepts every answer the interface allows). `decision`: the documented decision of ours it
 * enforces (under `reference` only). A check with both enforces the interface everywhere and, under
 * `reference`, the decision too (an error code, a header, a stricter status).
 */
export type CheckSource =
  | { spec: string; decision?: undefined; interfaceDescription?: undefined }
  | {
      spec: string;
      decision: string;
      /**
       * One line: what the check asserts under `interface`, where it asserts less than `description` says
       * (no error code, no header, no ordering of ours). Required: under `interface`, `ok` must mean what it says.
       */
      interfaceDescription: string;
    }
  | { spec?: undefined; decision: string; interfaceDescription?: undefined };

export type Check = CheckSource & {
  /** Stable: other teams grep for it, put it in tickets and allow-lists. Never renamed, never reused. */
  id: string;
  /** One line: what a conforming deployment does under `reference` (and under `interface`, unless it has a decision). */
  description: string;
  run(ctx: CheckContext): Promise<void>;
};

/** Whether a check runs under a profile: every check under `reference`, checks with a spec section under `interface`. */
export const inProfile = (check: Check, profile: Profile): boolean =>
  profile === 'reference' || check.spec !== undefined;

/** The line that says what a check asserts under a profile: printed, listed and reported. */
export const describeCheck = (check: Check, profile: Profile): string =>
  profile === 'interface' && check.interfaceDescription !== undefined
    ? check.interfaceDescription
    : check.description;

/** A check's `spec` and `decision`, only those it has (for results and listings). */
export const sourceOf = ({ spec, decision }: Check): { spec?: string; decision?: string } => ({
  ...(spec === undefined ? {} : { spec }),
  ...(decision === undefined ? {} : { decision }),
});

/** The part of a context the assertions need: how strict to be. */
export type Strictness = Pick<CheckContext, 'profile'>;

/** True when a run also certifies our documented decisions (the `reference` profile). */
export const reference = (ctx: Strictness): boolean => ctx.profile === 'reference';

// What the interface itself says of a Pet and an Error, without our decisions: any string name (its constraints
// are "not shown"), any int64 id, and other fields tolerated (the interface does not forbid them).
const InterfacePetSchema = z.looseObject({
  id: Int64Schema,
  name: z.string(),
  categoryId: Int64Schema,
  status: z.optional(PetStatusSchema),
});
const InterfaceErrorSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  status: z.int(),
});
const schemasOf = (ctx: Strictness) =>
  reference(ctx)
    ? { pet: PetSchema, pets: PetsSchema, error: ErrorSchema }
    : { pet: InterfacePetSchema, pets: z.array(InterfacePetSchema), error: InterfaceErrorSchema };

/** A deviation from the interface, with the request that shows it. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';
  constructor(
    message: string,
    readonly exchange?: Exchange,
    /** For a request that got no response (network error, timeout). */
    readonly request?: SentRequest,
  ) {
    super(message);
  }
}

/** A check that cannot apply to this deployment (it publishes no OpenAPI document, say): reported, not failed. */
export class CheckSkipped extends Error {
  override name = 'CheckSkipped';
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

export function fail(message: string, exchange?: Exchange): never {
  throw new CheckFailure(message, exchange);
}

export function check(condition: unknown, message: string, exchange?: Exchange): asserts condition {
  if (!condition) fail(message, exchange);
}

// Invisible characters (U+FEFF, NBSP, controls) are written as \\uXXXX so a message shows what differs.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u2000-\u200a\u3000]/gu;

const show = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)).replace(
    INVISIBLE,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );

/**
 * The statuses each operation may answer with (success first), by operationId: what the `reference` profile
 * holds responses to. Built from any operations, so a contract with an added operation lists its statuses too.
 */
export function documentedStatusTable(
  ops: readonly OperationContract[],
): Readonly<Record<string, readonly number[]>> {
  return Object.fromEntries(ops.map((op) => [op.id, documentedStatuses(op)]));
}

/** The statuses each operation of the interface may answer with, from the contract in @petstore/schema. */
export const DOCUMENTED_STATUSES = documentedStatusTable(operations) as Record<
  OperationId,
  readonly number[]
>;

/** JSON responses say so: `application/json`, charset UTF-8 if any is named. */
export function expectJsonContentType(exchange: Exchange): void {
  const contentType = exchange.headers.get('content-type');
  check(
    contentType !== null && /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i.test(contentType),
    `expected Content-Type application/json, got ${contentType === null ? 'none' : JSON.stringify(contentType)}`,
    exchange,
  );
}

export function expectStatus(exchange: Exchange, status: number): void {
  if (exchange.status !== status) {
    fail(`expected status ${status}, got ${exchange.status}: ${exchange.text.slice(0, 300)}`, exchange);
  }
}

/** A JSON body valid against a schema model; returns the parsed (int64 as bigint) value. */
function expectBody<T extends z.ZodMiniType>(exchange: Exchange, schema: T, what: string): z.output<T> {
  expectJsonContentType(exchange);
  check(exchange.jsonError === undefined, `body is not JSON (${exchange.jsonError})`, exchange);
  const result = schema.safeParse(exchange.json);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
      .join('; ');
    fail(`body is not a valid ${what}: ${issues}; body: ${exchange.text.slice(0, 300)}`, exchange);
  }
  return result.data;
}

/**
 * The interface's Error body {code, message, status}: `status` equal to the HTTP status, a non-empty message, a
 * JSON Content-Type. Under `reference` also exactly those fields, a known code only ever with its documented
 * status, and `code` as given; under `interface` any code string is accepted.
 */
export function expectError(ctx: Strictness, exchange: Exchange, status: number, code?: string): void {
  expectStatus(exchange, status);
  const body = expectBody(exchange, schemasOf(ctx).error, 'Error');
  check(body.status === status, `Error.status is ${body.status}, the HTTP status is ${status}`, exchange);
  check(body.message.trim() !== '', 'Error.message is empty', exchange);
  // RFC 9110 section 11.6.1: a 401 MUST carry WWW-Authenticate with at least one challenge, under every profile.
  if (status === 401) {
    check(
      (exchange.headers.get('www-authenticate') ?? '').trim() !== '',
      'a 401 without WWW-Authenticate (RFC 9110 section 11.6.1: it MUST carry at least one challenge)',
      exchange,
    );
  }
  if (!reference(ctx)) return;
  const documented = (ERROR_CODES as Record<string, number>)[body.code];
  check(
    documented === undefined || documented === status,
    `Error.code ${JSON.stringify(body.code)} is documented with status ${documented}, sent with ${status}`,
    exchange,
  );
  if (code !== undefined) {
    check(
      body.code === code,
      `expected Error.code ${JSON.stringify(code)}, got ${JSON.stringify(body.code)}`,
      exchange,
    );
  }
}

/** A 4xx refusal that is never a 5xx: the first thing said when a server falls over on bad input. */
export function expectRefused(ctx: Strictness, exchange: Exchange, status: number, code?: string): void {
  check(
    exchange.status < 500,
    `server error ${exchange.status} on bad input: ${exchange.text.slice(0, 300)}`,
    exchange,
  );
  expectError(ctx, exchange, status, code);
}

/**
 * Where the interface is silent on how bad input is answered: under `reference`, the refusal we document;
 * under `interface`, any 4xx with an Error body (or, when `tolerated` allows, a success it then checks), never
 * a 5xx and never a 4xx without an Error body.
 */
export function expectRefusedOr(
  ctx: Strictness,
  exchange: Exchange,
  refusal: { status: number; code?: string },
  tolerated?: (exchange: Exchange) => void,
): void {
  if (reference(ctx)) {
    expectRefused(ctx, exchange, refusal.status, refusal.code);
    return;
  }
  check(
    exchange.status < 500,
    `server error ${exchange.status} on bad input: ${exchange.text.slice(0, 300)}`,
    exchange,
  );
  if (exchange.status < 400 && tolerated !== undefined) {
    tolerated(exchange);
    return;
  }
  check(
    exchange.status >= 400,
    `expected a refusal (4xx with an Error body), got ${exchange.status}: ${exchange.text.slice(0, 300)}`,
    exchange,
  );
  expectError(ctx, exchange, exchange.status);
}

export function expectPet(ctx: Strictness, exchange: Exchange, status: number): Pet {
  expectStatus(exchange, status);
  return expectBody(exchange, schemasOf(ctx).pet, 'Pet') as Pet;
}

export function expectPets(ctx: Strictness, exchange: Exchange): Pet[] {
  expectStatus(exchange, 200);
  return expectBody(exchange, schemasOf(ctx).pets, 'Pets (a bare JSON array of Pet)') as Pet[];
}

/** Pets are listed by id ascending, each id once. */
export function expectAscendingIds(pets: readonly Pet[], exchange: Exchange): void {
  for (let index = 1; index < pets.length; index += 1) {
    const previous = pets[index - 1] as Pet;
    const current = pets[index] as Pet;
    check(
      current.id > previous.id,
      `not ordered by id ascending (or an id repeats): id ${current.id} follows id ${previous.id} at position ${index}`,
      exchange,
    );
  }
}

/**
 * Same fields, same values, `status` absent on both or equal. Under `interface`, a pet created without a status
 * may carry any PetStatus: the status a pet takes when none is sent is not shown by the interface.
 */
function samePet(ctx: Strictness, actual: Pet, expected: Omit<Pet, 'id'> & { id?: bigint }): boolean {
  const status =
    expected.status === undefined && !reference(ctx)
      ? true
      : 'status' in actual === (expected.status !== undefined) && actual.status === expected.status;
  return (
    (expected.id === undefined || actual.id === expected.id) &&
    actual.name === expected.name &&
    actual.categoryId === expected.categoryId &&
    status
  );
}

export function expectSamePet(
  ctx: Strictness,
  actual: Pet,
  expected: Omit<Pet, 'id'> & { id?: bigint },
  exchange: Exchange,
): void {
  check(samePet(ctx, actual, expected), `expected ${show(expected)}, got ${show(actual)}`, exchange);
}
