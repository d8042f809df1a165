// The wire part of the check: the released documents against the current ones, by api-smart-diff (OpenAPI 3.1 and
// JSON Schema aware: it follows $refs, merges allOf and knows that a narrower request and a wider response break
// callers). Its verdicts are kept; what it leaves unclassified (our `x-` extensions) is decided here, and every
// difference is said again in plain words for the report and the changelog.
import type { StabilityLevel } from '@petstore/schema';
import { STABILITY_LEVELS } from '@petstore/schema/internal';
import { apiDiff, type Diff } from 'api-smart-diff';
import type { JsonDocument } from './describe-contract.js';
import type { Finding } from './finding.js';

/** The packages a wire break reaches: the contract's models and the clients that send and check them. */
const WIRE_PACKAGES = ['@petstore/schema', '@petstore/client'] as const;

export type Surface = 'rest' | 'trpc';

const AUDIENCE: Record<Surface, string> = {
  rest: 'REST consumers',
  trpc: 'tRPC callers (createTrpcClient)',
};

type Json = Record<string, unknown>;
const at = (value: unknown, key: string | number): unknown =>
  typeof value === 'object' && value !== null ? (value as Json)[key] : undefined;
const dig = (value: unknown, path: readonly (string | number)[]): unknown =>
  path.reduce<unknown>((node, key) => at(node, key), value);
const code = (value: unknown) =>
  typeof value === 'string'
    ? `\`${value}\``
    : JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}` : v));

export interface WireDiffOptions {
  /** Today, as an ISO date (`2026-11-23`): operations whose sunset is later may not be removed. */
  today: string;
}

/** Every difference between the released and the current document of one surface, classified. */
export function diffWire(
  surface: Surface,
  before: JsonDocument,
  after: JsonDocument,
  { today }: WireDiffOptions,
): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const diff of apiDiff(before, after)) {
    // Components are reached through the operations that use them, where request and response are told apart.
    if (diff.path[0] === 'components') continue;
    const verdict = classify(diff, before);
    const catalogue = errorCatalogueChange(diff);
    const where = describeWhere(diff.path, before, after, surface);
    const finding: Finding = {
      kind: verdict,
      audience: verdict === 'compatible' ? 'nobody' : AUDIENCE[surface],
      packages: verdict === 'compatible' ? [] : [...WIRE_PACKAGES],
      surface,
      where:
        catalogue === undefined
          ? where.label
          : `Error body (every ${surface === 'rest' ? 'REST' : 'tRPC'} error)`,
      what: catalogue ?? describeChange(diff, where.subject),
      // Redoc's badge only shows the level; the level (`x-stability`) is a promise, never mere wording.
      documentation:
        diff.path.at(-1) !== 'x-stability' && (diff.type === 'annotation' || diff.path.includes('x-badges')),
      // The shared Error body is no one operation's: its changes are held as stable.
      ...(catalogue === undefined ? releasedOperation(diff.path, before, after) : {}),
    };
    // A shared model (the Error body) shows up at every response that uses it: say it once.
    const key = `${finding.kind}|${finding.where}|${finding.what}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(finding);
    findings.push(...sunsetRefusals(diff, before, surface, today));
  }
  return findings;
}

const levelOf = (value: unknown): StabilityLevel =>
  STABILITY_LEVELS.find((level) => level === value) ?? 'stable';

/**
 * The operation a difference is inside, and the level it had in the last release (a release from before levels
 * existed has none: it promised every operation what `stable` promises). A whole path removed takes the most
 * settled level of its operations. Nothing for a difference outside the operations.
 */
function releasedOperation(
  path: readonly (string | number)[],
  before: JsonDocument,
  after: JsonDocument,
): Pick<Finding, 'operation' | 'stability'> {
  if (path[0] !== 'paths' || path.length < 2) return {};
  if (path.length === 2) {
    const released = Object.values((dig(before, path) ?? {}) as Record<string, unknown>);
    if (released.length === 0) return {};
    const levels = released.map((op) => STABILITY_LEVELS.indexOf(levelOf(at(op, 'x-stability'))));
    return { stability: STABILITY_LEVELS[Math.min(...levels)] as StabilityLevel };
  }
  const released = dig(before, path.slice(0, 3));
  const op = released ?? dig(after, path.slice(0, 3));
  const id = at(op, 'operationId');
  return {
    ...(typeof id === 'string' ? { operation: id } : {}),
    stability: levelOf(at(op, 'x-stability')),
  };
}

/**
 * A change of an operation's level: raising it (experimental -> beta -> stable) promises more and is compatible;
 * lowering it takes a promise back and breaks, judged at the level it had. A level first declared on an operation
 * released before levels existed is a change from `stable`.
 */
function levelChange(diff: Diff): 'break' | 'compatible' {
  const was = STABILITY_LEVELS.indexOf(levelOf(diff.before));
  const now = STABILITY_LEVELS.indexOf(levelOf(diff.after));
  return now > was ? 'break' : 'compatible';
}

/** `dig`, following `$ref`s to `#/...` pointers of the document on the way (as the differ does). */
function digResolved(document: JsonDocument, path: readonly (string | number)[]): unknown {
  let node: unknown = document;
  for (const key of path) {
    const ref = at(node, '$ref');
    if (at(node, key) === undefined && typeof ref === 'string' && ref.startsWith('#/')) {
      node = dig(document, ref.slice(2).split('/'));
    }
    node = at(node, key);
  }
  const ref = at(node, '$ref');
  return typeof ref === 'string' && ref.startsWith('#/') ? dig(document, ref.slice(2).split('/')) : node;
}

/**
 * A change to the Error schema's list of known codes (`x-error-codes: { code: status }`), in words; undefined for
 * anything else. (An operation's own `x-error-codes` is an array: the codes one status carries.)
 */
function errorCatalogueChange(diff: Diff): string | undefined {
  const code = diff.path.at(-1);
  if (diff.path.at(-2) !== 'x-error-codes' || typeof code !== 'string' || /^\d+$/.test(code))
    return undefined;
  if (diff.action === 'add') return `new error code \`${code}\` (${String(diff.after)})`;
  if (diff.action === 'remove') return `error code \`${code}\` (${String(diff.before)}) removed`;
  return `error code \`${code}\`: status ${String(diff.before)} -> ${String(diff.after)}`;
}

/** api-smart-diff's verdict, with ours where it has none or where our promise is stricter than its rules. */
function classify(diff: Diff, before: JsonDocument): 'break' | 'compatible' {
  const last = diff.path.at(-1);
  const parent = diff.path.at(-2);
  if (parent === 'properties' && diff.action === 'add' && diff.path.includes('responses')) {
    // Our response objects are closed (`additionalProperties: false`): a client validating with the released
    // schema, as @petstore/client does by default, refuses a field it does not know.
    const object = digResolved(before, diff.path.slice(0, -2));
    return at(object, 'additionalProperties') === false || object === undefined ? 'break' : 'compatible';
  }
  if (parent === 'properties' && diff.action === 'remove' && diff.path.includes('requestBody')) {
    // A request object that refuses unknown fields (ours do) answers 400 to a caller that still sends the
    // removed one: narrowed input. An open object would ignore it.
    const object = digResolved(before, diff.path.slice(0, -2));
    return at(object, 'additionalProperties') === false || object === undefined ? 'break' : 'compatible';
  }
  if (parent === 'x-error-codes' || last === 'x-error-codes') {
    // A code may be added to a status (the Error schema's promise); one taken away or renamed is a change.
    return diff.action === 'add' ? 'compatible' : 'break';
  }
  if (last === 'x-sunset') {
    const later =
      typeof diff.before === 'string' && typeof diff.after === 'string' && diff.after > diff.before;
    return diff.action === 'replace' && later ? 'compatible' : 'break';
  }
  if (last === 'x-replaced-by') return 'compatible';
  if (last === 'x-stability') return levelChange(diff);
  if (diff.path.includes('x-badges')) return 'compatible';
  // A response's `links` (createPet's 201 -> getPet) tell tools how to chain calls; nothing on the wire changes.
  // One added is compatible; one removed or changed breaks a tool that follows it.
  const links = diff.path.indexOf('links');
  if (links > 1 && diff.path[links - 2] === 'responses')
    return diff.action === 'add' ? 'compatible' : 'break';
  // A response header promised more firmly (now `required`, or a narrower schema: a pattern, a const) breaks no
  // consumer: what it may receive only shrinks. Promised less (no longer required, wider) breaks one that relied on
  // it. api-smart-diff judges header schemas as it judges request parameters.
  const headers = diff.path.indexOf('headers');
  if (headers > 1 && diff.path[headers - 2] === 'responses' && diff.path.length > headers + 1) {
    if (last === 'required') return diff.after === true ? 'compatible' : 'break';
    if ((last === 'pattern' || last === 'const') && diff.action === 'add') return 'compatible';
  }
  // A response that is no longer sent (a success status changed, an error status dropped) breaks whoever relied on it.
  if (parent === 'responses' && diff.action !== 'add') return 'break';
  if (diff.type === 'breaking' || diff.type === 'unclassified') return 'break';
  return 'compatible';
}

/** A deprecated operation removed before its sunset: refused whatever the changeset says. */
function sunsetRefusals(diff: Diff, before: JsonDocument, surface: Surface, today: string): Finding[] {
  if (diff.path[0] !== 'paths') return [];
  // Moving a sunset earlier is the same promise broken in two steps (move it, then remove): refused too.
  if (diff.action === 'replace' && diff.path.at(-1) === 'x-sunset') {
    const [was, now] = [diff.before, diff.after];
    if (typeof was !== 'string' || typeof now !== 'string' || now >= was || was <= today) return [];
    const op = dig(before, diff.path.slice(0, 3));
    return [
      {
        kind: 'refused' as const,
        audience: AUDIENCE[surface],
        packages: [...WIRE_PACKAGES],
        surface,
        where: operationLabel(diff.path.slice(0, 3), before, surface),
        what:
          `${String(at(op, 'operationId'))} is deprecated with sunset ${was}: the sunset may not move earlier ` +
          `(to ${now}), whatever the changeset says`,
        documentation: false,
      },
    ];
  }
  if (diff.action !== 'remove') return [];
  const removed =
    diff.path.length === 2
      ? Object.values((diff.before ?? {}) as Record<string, Json>)
      : diff.path.length === 3
        ? [diff.before as Json]
        : [];
  return removed.flatMap((op) => {
    const sunset = at(op, 'x-sunset');
    if (typeof sunset !== 'string' || sunset <= today) return [];
    return [
      {
        kind: 'refused' as const,
        audience: AUDIENCE[surface],
        packages: [...WIRE_PACKAGES],
        surface,
        where: operationLabel(diff.path.slice(0, 2).concat(diff.path[2] ?? ''), before, surface),
        what:
          `${String(at(op, 'operationId'))} is deprecated with sunset ${sunset}: it may not be removed before that day ` +
          '(today is ' +
          `${today}), whatever the changeset says`,
        documentation: false,
      },
    ];
  });
}

function operationLabel(path: readonly (string | number)[], before: JsonDocument, surface: Surface) {
  const route = String(path[1]);
  const method = String(path[2] ?? '');
  const id = at(dig(before, ['paths', route, method]), 'operationId');
  if (surface === 'trpc') return `${String(id ?? route)} (tRPC ${route.slice(1)})`;
  return `${String(id ?? '')} (${method.toUpperCase()} ${route})`.trim();
}

/**
 * Where in the document a difference is, in words: the operation (`createPet (POST /pets)`) and the part of it
 * (`request body field \`name\``, `query parameter \`limit\``, `response 200 header \`Link\``).
 */
function describeWhere(
  path: readonly (string | number)[],
  before: JsonDocument,
  after: JsonDocument,
  surface: Surface,
): { label: string; subject: string } {
  if (path[0] === 'paths' && path.length === 2) {
    const route = String(path[1]);
    return { label: surface === 'trpc' ? `tRPC ${route.slice(1)}` : route, subject: '' };
  }
  if (path[0] !== 'paths' || path.length < 3) {
    return { label: path.length === 0 ? 'document' : path.map(String).join('.'), subject: '' };
  }
  const op = path.slice(0, 3);
  const fromEither = (rest: (string | number)[]) =>
    dig(before, [...op, ...rest]) ?? dig(after, [...op, ...rest]);
  const label = operationLabel(path, dig(before, op) !== undefined ? before : after, surface);
  let rest = path.slice(3);
  let subject = '';
  if (rest[0] === 'parameters' && rest[1] !== undefined) {
    const parameter = fromEither(['parameters', rest[1]]);
    subject = `${String(at(parameter, 'in'))} parameter \`${String(at(parameter, 'name'))}\``;
    rest = rest.slice(2);
  } else if (rest[0] === 'requestBody') {
    subject = surface === 'trpc' ? 'input' : 'request body';
    rest = rest.slice(1);
  } else if (rest[0] === 'responses' && rest[1] !== undefined) {
    subject = surface === 'trpc' && rest[1] === '200' ? 'result' : `response ${rest[1]}`;
    rest = rest.slice(2);
    if (rest[0] === 'headers' && rest[1] !== undefined) {
      subject += ` header \`${rest[1]}\``;
      rest = rest.slice(2);
    }
  }
  // Inside a schema: name the field, skip the plumbing (content type, allOf, $ref expansion).
  const field: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const key = rest[i];
    if (key === 'properties' && rest[i + 1] !== undefined && i + 2 < rest.length) {
      field.push(String(rest[i + 1]));
      i++;
    } else if (key === 'items' && i + 1 < rest.length) field.push('[]');
  }
  if (field.length > 0) subject += ` field \`${field.join('.').replaceAll('.[]', '[]')}\``;
  return { label, subject: subject.trim() };
}

/** What changed, in words: `value \`lost\` added`, `maxLength 255 -> 100`, `\`status\` is now required`. */
function describeChange(diff: Diff, subject: string): string {
  const path = diff.path;
  const last = path.at(-1);
  const parent = path.at(-2);
  const on = subject === '' ? '' : `${subject}: `;
  const verb = { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' }[diff.action];
  if (path[0] === 'paths' && path.length === 2) return `path ${verb} (every operation on it)`;
  if (path[0] === 'paths' && path.length === 3) return `operation ${verb}`;
  if (parent === 'enum') {
    return diff.action === 'add'
      ? `${on}new value ${code(diff.after)}`
      : diff.action === 'remove'
        ? `${on}value ${code(diff.before)} removed`
        : `${on}value ${code(diff.before)} -> ${code(diff.after)}`;
  }
  if (parent === 'required' || last === 'required') {
    if (typeof diff.after === 'boolean' || typeof diff.before === 'boolean') {
      return `${on}required ${String(diff.before ?? false)} -> ${String(diff.after ?? false)}`;
    }
    return diff.action === 'add'
      ? `${on}\`${String(diff.after)}\` is now required`
      : `${on}\`${String(diff.before)}\` is no longer required`;
  }
  if (parent === 'x-error-codes' || last === 'x-error-codes') {
    return diff.action === 'add'
      ? `${on}new error code ${code(diff.after)}`
      : diff.action === 'remove'
        ? `${on}error code ${code(diff.before)} no longer sent`
        : `${on}error code ${code(diff.before)} -> ${code(diff.after)}`;
  }
  if (parent === 'anyOf' || parent === 'oneOf') {
    const variant = (diff.after ?? diff.before) as Json;
    const text = at(variant, 'type') === 'null' ? 'null' : `also ${code(variant)}`;
    if (diff.action === 'add') return `${on}may now be ${text}`;
    if (diff.action === 'remove') return `${on}may no longer be ${text}`;
  }
  if (parent === 'properties') {
    return `${on}field \`${String(last)}\` ${verb}`;
  }
  if (parent === 'parameters') {
    const parameter = (diff.after ?? diff.before) as Json;
    const required = at(parameter, 'required') === true ? 'required' : 'optional';
    return `${required} ${String(at(parameter, 'in'))} parameter \`${String(at(parameter, 'name'))}\` ${verb}`;
  }
  if (last === 'x-stability') {
    if (diff.action !== 'add')
      return `stability level ${code(diff.before)} -> ${code(diff.after ?? 'stable')}`;
    const lowered = diff.after === 'stable' ? '' : ' (the release had no levels: it promised `stable`)';
    return `stability level ${code(diff.after)} declared${lowered}`;
  }
  if (parent === 'responses') return `response ${String(last)} ${verb}`;
  if (parent === 'headers') return `${on}header \`${String(last)}\` ${verb}`;
  if (last === 'description' || last === 'summary' || last === 'example')
    return `${on}${String(last)} reworded`;
  const name = String(last);
  if (diff.action === 'replace') return `${on}${name} ${code(diff.before)} -> ${code(diff.after)}`;
  if (diff.action === 'add') return `${on}${name} ${code(diff.after)} added`;
  if (diff.action === 'remove') return `${on}${name} ${code(diff.before)} removed`;
  return `${on}${diff.description ?? `${name} ${verb}`}`;
}
