// Conditional requests (RFC 9110 section 13) for every route that honours them. Why not `fresh`: docs/development.md,
// "Home-made parts"; preconditions.test.ts holds it to `fresh`'s verdict on every well-formed field.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import varyOn from 'vary';
import { AppError } from '../errors.js';
import { checkHead } from './body.js';

/** One entity tag of a field: `W/"xyz"` is `{ weak: true, opaque: 'xyz' }`. */
interface EntityTag {
  weak: boolean;
  opaque: string;
}

/**
 * `If-Match` / `If-None-Match` (RFC 9110 sections 13.1.1, 13.1.2): `*`, or a comma-separated list of entity tags
 * (empty elements allowed, section 5.6.1; etagc includes obs-text, as Node hands over latin1). Undefined when absent
 * or anything in it is not that: a malformed field names no tag.
 */
const TAG_LIST = /^[ \t,]*(?:(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"[ \t]*(?:,[ \t,]*|$))+$/;

export function parseTagList(field: string | undefined): '*' | EntityTag[] | undefined {
  if (field === undefined) return undefined;
  if (/^[ \t]*\*[ \t]*$/.test(field)) return '*';
  if (!TAG_LIST.test(field)) return undefined;
  return [...field.matchAll(/(W\/)?"([^"]*)"/g)].map(([, weak, opaque]) => ({
    weak: weak !== undefined,
    opaque: opaque as string,
  }));
}

/**
 * RFC 9110 section 13.2.2, for a request whose target exists, given the entity tag of the representation it selects,
 * if any (the REST operations send none): go on, 304 (GET, HEAD) or 412. If-Match is compared strongly,
 * If-None-Match weakly; If-Modified-Since and If-Unmodified-Since are ignored: nothing here has a modification date.
 */
export function evaluatePreconditions(method: string, headers: IncomingHttpHeaders, currentTag?: string) {
  const current = currentTag === undefined ? undefined : (parseTagList(currentTag) as EntityTag[])[0];
  // A field that is not `*` nor a list of tags (Node joins two `If-None-Match: *` lines as `*, *`) names no condition
  // that can be read. Nothing is applied under it: If-Match is false, and so is If-None-Match on any method but a
  // read, which answers in full, as if it were absent (a full answer is always a right answer to a read).
  const safe = method === 'GET' || method === 'HEAD';
  const ifMatch = headers['if-match'] === undefined ? undefined : (parseTagList(headers['if-match']) ?? []);
  // Compared strongly: a weak tag on either side matches nothing.
  const strong = current?.weak === false ? current.opaque : undefined;
  if (ifMatch !== undefined && ifMatch !== '*' && !ifMatch.some((tag) => !tag.weak && tag.opaque === strong))
    return 'failed';
  const ifNoneMatch = parseTagList(headers['if-none-match']);
  if (ifNoneMatch === undefined && headers['if-none-match'] !== undefined && !safe) return 'failed';
  if (ifNoneMatch === '*' || ifNoneMatch?.some((tag) => tag.opaque === current?.opaque))
    return safe ? 'not-modified' : 'failed';
  return 'proceed';
}

const preconditionFailed = (currentTag: string | undefined) =>
  new AppError(
    'precondition_failed',
    `A precondition is false (If-Match or If-None-Match), or not "*" nor a list of entity tags: the request was not applied. ${
      currentTag === undefined
        ? 'This resource sends no entity tag: If-Match holds only as *, and If-None-Match: * fails where it exists.'
        : `This resource's entity tag is ${currentTag}: If-Match compares strongly (a weak tag never matches it).`
    }`,
  );

/**
 * A request's preconditions before its content is read and anything is applied: a false one throws the 412. Called
 * once everything else decided without the content is (RFC 9110 section 13.2.1: preconditions are ignored where the
 * answer without them would not be a 2xx), so a request that carries `content` has its head judged first here (415,
 * 413: http/body.ts checkHead): one order on every transport.
 */
export function refuseFalsePreconditions(req: IncomingMessage, { content }: { content: boolean }): void {
  if (content) checkHead(req);
  if (evaluatePreconditions(req.method as string, req.headers) === 'failed')
    throw preconditionFailed(undefined);
}

/**
 * A read's preconditions, once its answer is known to be a 2xx (a 404 or a 503 stays one): true when the answer is a
 * 304, sent here with the headers set so far and `vary` (what its 200 would vary on that a middleware adds only to a
 * body, RFC 9110 section 15.4.5); a false If-Match throws the 412.
 */
export function answeredConditionally(
  req: IncomingMessage,
  res: ServerResponse,
  { currentTag, vary }: { currentTag?: string | undefined; vary?: string | undefined } = {},
): boolean {
  const verdict = evaluatePreconditions(req.method as string, req.headers, currentTag);
  if (verdict === 'proceed') return false;
  if (verdict === 'failed') throw preconditionFailed(currentTag);
  if (vary !== undefined) varyOn(res, vary);
  res.statusCode = 304;
  res.end();
  return true;
}
