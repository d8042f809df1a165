import { type OperationId, pathPattern, restOperations } from '@petstore/schema';
import {
  type Check,
  type CheckContext,
  DOCUMENTED_STATUSES,
  expectError,
  expectJsonContentType,
  fail,
} from '../check.js';
import type { Exchange } from '../http-client.js';

/** The contract's operations as path patterns (relative to the base URL) and methods. */
const ROUTES = restOperations.map((op) => ({
  id: op.id as OperationId,
  method: op.method,
  pattern: pathPattern(op.path),
}));

/** Which interface operation a request was, if any (unknown paths and methods are not operations). */
function operationOf(exchange: Exchange): OperationId | undefined {
  const path = exchange.request.path.split('?')[0] ?? '';
  const method = exchange.request.method === 'HEAD' ? 'GET' : exchange.request.method;
  return ROUTES.find((route) => route.method === method && route.pattern.test(path))?.id;
}

/**
 * These checks read every response the other checks received in this run, so they run last. Run on their own
 * (`--only responses.`) they first make a few requests of each operation.
 */
async function observed(ctx: CheckContext): Promise<readonly Exchange[]> {
  if (ctx.http.log.length < 10) {
    const pet = await ctx.fixtures.samplePet();
    await ctx.http.send('/pets');
    await ctx.http.send('/pets?limit=0');
    await ctx.http.send(`/pets/${pet.id}`);
    await ctx.http.send('/pets/0');
    await ctx.http.send('/pets', { auth: null });
  }
  return ctx.http.log;
}

export const responseChecks: Check[] = [
  {
    id: 'responses.documented-status',
    description:
      'every response of an operation of the interface seen in this run has a status documented for that operation',
    async run(ctx) {
      for (const exchange of await observed(ctx)) {
        const operation = operationOf(exchange);
        if (operation === undefined) continue;
        const documented: readonly number[] = DOCUMENTED_STATUSES[operation];
        if (!documented.includes(exchange.status)) {
          fail(`${operation} answered ${exchange.status}, documented: ${documented.join(', ')}`, exchange);
        }
      }
    },
  },
  {
    id: 'responses.no-server-error',
    description: 'no request of this run, however malformed, got a 5xx',
    async run(ctx) {
      const failed = (await observed(ctx)).find((exchange) => exchange.status >= 500);
      if (failed) fail(`server error ${failed.status}: ${failed.text.slice(0, 300)}`, failed);
    },
  },
  {
    id: 'responses.error-body',
    description:
      'every error response seen in this run is an Error {code, message, status} with status = the HTTP status, as application/json',
    async run(ctx) {
      for (const exchange of await observed(ctx)) {
        if (exchange.status >= 400) expectError(exchange, exchange.status);
      }
    },
  },
  {
    id: 'responses.content-type',
    description: 'every response with a body seen in this run is Content-Type application/json',
    async run(ctx) {
      for (const exchange of await observed(ctx)) {
        if (exchange.text !== '') expectJsonContentType(exchange);
      }
    },
  },
];
