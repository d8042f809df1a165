import { LIST_LIMIT, type Pet } from '@petstore/schema';
import { type Check, check, expectAscendingIds, expectPets, expectRefused, fail } from '../check.js';
import type { Exchange } from '../http-client.js';

// Paging listPets by `Link: <...>; rel="next"` (RFC 8288) with an opaque `cursor`. The interface only says the
// list is "paginated"; these check this implementation's documented decisions (docs/interface-decisions.md),
// not the spec's minimum, and say so in their descriptions.

const DECISION = '(documented decision, not the spec minimum)';
const PAGING = 'Decision: paging (keyset cursor, Link rel="next" on every page but the last)';
/** Most pages a walk follows before giving up: a loop of `next` links must not run forever. */
const MAX_PAGES = 1000;

/** The next page as a path under the base URL, from an absolute `rel="next"` URL; undefined on the last page. */
function nextPath(exchange: Exchange): string | undefined {
  const link = exchange.headers.get('link');
  if (link === null) return undefined;
  const match = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link);
  if (match === null) return undefined;
  const url = URL.parse(match[1] as string);
  check(url !== null, `Link rel="next" is not an absolute URL: ${link}`, exchange);
  check(url.pathname.endsWith('/v1/pets'), `Link rel="next" does not point at /v1/pets: ${link}`, exchange);
  check(url.searchParams.get('cursor'), `Link rel="next" carries no cursor: ${link}`, exchange);
  return `/pets${url.search}`;
}

/** Follows `rel="next"` from `first` to the last page; the pets of every page, and the last exchange. */
async function walk(
  ctx: Parameters<Check['run']>[0],
  first: string,
  maxPages = MAX_PAGES,
): Promise<{ pets: Pet[]; last: Exchange; complete: boolean }> {
  const pets: Pet[] = [];
  let path: string | undefined = first;
  let last: Exchange | undefined;
  for (let page = 0; page < maxPages && path !== undefined; page += 1) {
    last = await ctx.http.send(path);
    pets.push(...expectPets(ctx, last));
    path = nextPath(last);
  }
  return { pets, last: last as Exchange, complete: path === undefined };
}

export const pagingChecks: Check[] = [
  {
    id: 'listPets.paging.walk.no-gap-no-duplicate',
    description: `following Link rel="next" with a small limit gives exactly the pets of one large page, in id order, each once ${DECISION}`,
    decision: PAGING,
    async run(ctx) {
      await ctx.fixtures.ensurePets(LIST_LIMIT.max);
      const whole = expectPets(ctx, await ctx.http.send(`/pets?limit=${LIST_LIMIT.max}`));
      const { pets, last } = await walk(ctx, '/pets?limit=7', Math.ceil(LIST_LIMIT.max / 7));
      const walked = pets.slice(0, whole.length);
      expectAscendingIds(walked, last);
      const ids = walked.map((pet) => String(pet.id));
      check(new Set(ids).size === ids.length, 'a pet appeared twice while following rel="next"', last);
      const expected = whole.map((pet) => String(pet.id));
      const gap = expected.find((id, index) => ids[index] !== id);
      check(gap === undefined, `pet ${gap} was skipped or misplaced while following rel="next"`, last);
    },
  },
  {
    id: 'listPets.paging.walk.to-the-end',
    description: `a walk of one status reaches a last page without Link, and lists a just-created pet once ${DECISION}`,
    decision: PAGING,
    async run(ctx) {
      const { pet } = await ctx.fixtures.createPet({
        name: ctx.fixtures.uniqueName('paging'),
        categoryId: 3,
        status: 'sold',
      });
      const { pets, last, complete } = await walk(ctx, `/pets?status=sold&limit=${LIST_LIMIT.max}`);
      if (!complete) fail(`no last page after ${MAX_PAGES} pages of status=sold`, last);
      check(last.headers.get('link') === null, 'the last page carries a Link header', last);
      expectAscendingIds(pets, last);
      const seen = pets.filter((listed) => listed.id === pet.id).length;
      check(seen === 1, `the pet created before the walk was listed ${seen} times`, last);
    },
  },
  {
    id: 'listPets.paging.last-page.no-link',
    description: `a page that holds every remaining pet has no Link rel="next" ${DECISION}`,
    decision: PAGING,
    async run(ctx) {
      const exchange = await ctx.http.send('/pets?status=pending&limit=1');
      const first = expectPets(ctx, exchange);
      const path = nextPath(exchange);
      if (path === undefined) {
        check(first.length <= 1, 'more pets than limit but no Link', exchange);
        return;
      }
      // The same status, one page large enough for what is left when it is small: no Link there.
      const rest = await ctx.http.send(path.replace(/limit=1(&|$)/, `limit=${LIST_LIMIT.max}$1`));
      const pets = expectPets(ctx, rest);
      if (pets.length < LIST_LIMIT.max)
        check(rest.headers.get('link') === null, 'a short page carries Link', rest);
    },
  },
  {
    id: 'listPets.paging.cursor.forged',
    description: `a forged, tampered, truncated or other-status cursor is 400 validation_failed, never a page ${DECISION}`,
    decision: PAGING,
    async run(ctx) {
      await ctx.fixtures.ensurePets(3);
      const exchange = await ctx.http.send('/pets?status=available&limit=1');
      const path = nextPath(exchange);
      check(path !== undefined, 'no Link rel="next" although more available pets exist', exchange);
      const cursor = new URLSearchParams(path.split('?')[1]).get('cursor') as string;
      const [body = '', sum = ''] = cursor.split('.');
      const forged = `${forgeBody(body)}.${sum}`;
      check(forged !== cursor, `could not forge a cursor that differs from ${cursor}`, exchange);
      for (const bad of [
        forged,
        `${body}.${sum.startsWith('A') ? 'B' : 'A'}${sum.slice(1)}`,
        cursor.slice(0, -3),
        'not-a-cursor',
      ]) {
        expectRefused(
          ctx,
          await ctx.http.send(`/pets?status=available&limit=1&cursor=${encodeURIComponent(bad)}`),
          400,
          'validation_failed',
        );
      }
      expectRefused(
        ctx,
        await ctx.http.send(`/pets?status=sold&limit=1&cursor=${encodeURIComponent(cursor)}`),
        400,
        'validation_failed',
      );
    },
  },
];

/**
 * The genuine cursor's content with its position moved one pet on, under the genuine checksum: guaranteed to
 * differ from the genuine one (a fixed `after` would equal it whenever that pet is the one the page ends at).
 * Content that is not our base64url JSON gets one character changed instead.
 */
function forgeBody(body: string): string {
  try {
    const content = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof content.after === 'string' && /^\d+$/.test(content.after)) {
      const after = (BigInt(content.after) + 1n).toString();
      return Buffer.from(JSON.stringify({ ...content, after })).toString('base64url');
    }
  } catch {
    // not ours: fall through
  }
  return `${body.startsWith('A') ? 'B' : 'A'}${body.slice(1)}`;
}
