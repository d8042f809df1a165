import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH } from '@petstore/schema';
import { type Check, type CheckContext, check, expectPet, expectRefused } from '../check.js';

// createPet's Idempotency-Key (IETF httpapi draft): a decision of the reference implementation that the
// interface does not require. These checks belong to the reference profile only; a deployment that does not
// offer idempotent creates is not failing the interface.

const REFERENCE_ONLY = '(Decision, reference profile only)';
const IDEMPOTENCY = 'Decision: idempotent creates (Idempotency-Key)';

const postWithKey = (ctx: CheckContext, key: string, body: object) =>
  ctx.http.send('/pets', {
    method: 'POST',
    headers: { 'content-type': 'application/json', [IDEMPOTENCY_KEY_HEADER]: key },
    body: JSON.stringify(body),
  });

const newKey = () => `conformance-${globalThis.crypto.randomUUID()}`;

export const idempotencyChecks: Check[] = [
  {
    id: 'createPet.idempotency-key.replayed',
    description: `a repeat of POST /pets with the same Idempotency-Key and body gets the first response (201, same body, same Location) and creates no second pet ${REFERENCE_ONLY}`,
    decision: IDEMPOTENCY,
    async run(ctx) {
      const key = newKey();
      const body = { name: ctx.fixtures.uniqueName('idempotent'), categoryId: 5, status: 'pending' };
      const first = await postWithKey(ctx, key, body);
      const pet = expectPet(ctx, first, 201);
      const repeat = await postWithKey(ctx, key, body);
      expectPet(ctx, repeat, 201);
      check(
        repeat.text === first.text,
        `the repeat answered ${repeat.text}, the first ${first.text}`,
        repeat,
      );
      check(
        repeat.headers.get('location') === first.headers.get('location'),
        `the repeat's Location is ${repeat.headers.get('location')}, the first's ${first.headers.get('location')}`,
        repeat,
      );
      const listed = await ctx.http.send(`/pets?status=pending&limit=100`);
      const named = (JSON.parse(listed.text) as { name?: string }[]).filter((p) => p.name === body.name);
      check(
        named.length <= 1,
        `${named.length} pets named ${body.name} (id ${pet.id}) after one create`,
        listed,
      );
    },
  },
  {
    id: 'createPet.idempotency-key.other-body',
    description: `the same Idempotency-Key with a different body is 422 idempotency_key_reused ${REFERENCE_ONLY}`,
    decision: IDEMPOTENCY,
    async run(ctx) {
      const key = newKey();
      expectPet(
        ctx,
        await postWithKey(ctx, key, { name: ctx.fixtures.uniqueName('key a'), categoryId: 1 }),
        201,
      );
      const other = await postWithKey(ctx, key, { name: ctx.fixtures.uniqueName('key b'), categoryId: 1 });
      expectRefused(ctx, other, 422, 'idempotency_key_reused');
    },
  },
  {
    id: 'createPet.idempotency-key.invalid',
    description: `an Idempotency-Key longer than ${IDEMPOTENCY_KEY_MAX_LENGTH} characters is 400 invalid_idempotency_key ${REFERENCE_ONLY}`,
    decision: IDEMPOTENCY,
    async run(ctx) {
      const refused = await postWithKey(ctx, 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1), {
        name: ctx.fixtures.uniqueName('bad key'),
        categoryId: 1,
      });
      expectRefused(ctx, refused, 400, 'invalid_idempotency_key');
    },
  },
];
