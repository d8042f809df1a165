// Conditional requests (RFC 9110 section 13), evaluated by one function for every route that honours them: the
// REST operations and the documentation. Home-made for a rule no stock part enforces: `fresh` (Express's
// req.fresh) reads If-None-Match loosely (space-separated tokens, unquoted ones, `xx"tag"yy`) and knows nothing of
// If-Match or of methods other than GET and HEAD; here a malformed field is never a match (so a malformed If-Match
// is false), and a false precondition stops any method. preconditions.test.ts holds it to `fresh`'s verdict on every well-formed field.
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../errors.js';

/** One entity tag of a field: `W/"xyz"` is `{ weak: true, opaque: 'xyz' }`. */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** etagc (RFC 9110 section 8.8.3): `!`, `#` to `~`, and obs-text (Node hands header bytes over as latin1). */
const ETAGC = /^[\x21\x23-\x7e\x80-\xff]*$/;

/**
 * `If-Match` / `If-None-Match` as RFC 9110 sections 13.1.1 and 13.1.2 define them: `*`, or a comma-separated
 * list of entity tags (empty elements allowed, section 5.6.1). Undefined when the field is absent or anything in
 * it is not that: a malformed field names no tag, so it matches nothing (evaluatePreconditions).
 */
export function parseTagList(field: string | undefined): '*' | EntityTag[] | undefined {
  if (field === undefined) return undefined;
  const text = field.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (char === ',' || char === ' ' || char === '\t') {
      at += 1;
      continue;
    }
    const weak = text.startsWith('W/', at);
    const open = weak ? at + 2 : at;
    if (text[open] !== '"') return undefined;
    const close = text.indexOf('"', open + 1);
    if (close === -1) return undefined;
    const opaque = text.slice(open + 1, close);
    if (!ETAGC.test(opaque)) return undefined;
    tags.push({ weak, opaque });
    // After a tag: optional whitespace, then a comma or the end.
    at = close + 1;
    while (text[at] === ' ' || text[at] === '\t') at += 1;
    if (at < text.length && text[at] !== ',') return undefined;
  }
  return tags.length === 0 ? undefined : tags;
}

/** What to do with a request whose target exists: go on, answer 304 (GET, HEAD), or answer 412. */
export type Verdict = 'proceed' | 'not-modified' | 'failed';

/**
 * RFC 9110 section 13.2.2, for a request whose answer would otherwise be a 2xx (so the target exists), given the
 * entity tag of the representation it selects (`W/"..."` or `"..."`), or none: the REST operations send none.
 * If-Match is compared strongly, If-None-Match weakly. If-Modified-Since and If-Unmodified-Since are ignored:
 * nothing here has a modification date (section 13.1.3, 13.1.4).
 */
export function evaluatePreconditions(
  method: string,
  headers: IncomingHttpHeaders,
  currentTag?: string,
): Verdict {
  const current = currentTag === undefined ? undefined : (parseTagList(currentTag) as EntityTag[])[0];
  // A field that is not `*` nor a list of tags names no tag, so none matches: If-Match is false (the method is not
  // applied, where ignoring it would apply it unconditionally); If-None-Match is true, as if absent.
  const ifMatch = headers['if-match'] === undefined ? undefined : (parseTagList(headers['if-match']) ?? []);
  if (
    ifMatch !== undefined &&
    ifMatch !== '*' &&
    !ifMatch.some(
      (tag) => !tag.weak && current !== undefined && !current.weak && tag.opaque === current.opaque,
    )
  ) {
    return 'failed';
  }
  const ifNoneMatch = parseTagList(headers['if-none-match']);
  if (
    ifNoneMatch === '*' ||
    (ifNoneMatch !== undefined &&
      current !== undefined &&
      ifNoneMatch.some((tag) => tag.opaque === current.opaque))
  ) {
    return method === 'GET' || method === 'HEAD' ? 'not-modified' : 'failed';
  }
  return 'proceed';
}

/** The 412 of a false precondition: the method was not applied. */
export function preconditionFailed(): AppError {
  return new AppError(
    'precondition_failed',
    'A precondition is false (If-Match or If-None-Match): the request was not applied. The API sends no entity ' +
      'tags on its operations, so only If-Match: * can be true there.',
  );
}
