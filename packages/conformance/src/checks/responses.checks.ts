import type { OperationId } from '@petstore/schema';
import { pathPattern, restOperations } from '@petstore/schema/internal';
import {
  type Check,
  type CheckContext,
  check,
  DOCUMENTED_STATUSES,
  expectError,
  expectJsonContentType,
  fail,
  reference,
  skip,
} from '../check.js';
import type { Exchange } from '../http-client.js';

/**
 * The contract's operations as path patterns (relative to the base URL) and methods, a literal path before a
 * templated one it also fits (`/pets/events` before `/pets/{petId}`), as OpenAPI matches them.
 */
const ROUTES = [...restOperations]
  .sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')))
  .map((op) => ({ id: op.id as OperationId, method: op.method, pattern: pathPattern(op.path) }));

/** The operations whose success is a stream of events (`text/event-stream`), not a JSON body. */
const STREAMING = new Set(restOperations.filter((op) => op.success.stream !== undefined).map((op) => op.id));

/** A stream's own answer: its success, as Server-Sent Events (read only in part: a stream may never end). */
const isStreamAnswer = (exchange: Exchange): boolean => {
  const operation = operationOf(exchange);
  return operation !== undefined && STREAMING.has(operation) && exchange.status === 200;
};

/** Server-Sent Events say so: `text/event-stream`, charset UTF-8 if any is named. */
function expectEventStreamContentType(exchange: Exchange): void {
  const contentType = exchange.headers.get('content-type');
  check(
    contentType !== null && /^text\/event-stream\s*(;\s*charset="?utf-8"?\s*)?$/i.test(contentType),
    `expected Content-Type text/event-stream (a stream of events), got ${contentType === null ? 'none' : JSON.stringify(contentType)}`,
    exchange,
  );
}

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

/**
 * What the interface documents as each operation's success (listPets 200, createPet 201, getPet 200; the contract's
 * success of the operations we add): any other 2xx (or a 1xx/3xx) is not a reading of it.
 */
const SUCCESS = Object.fromEntries(restOperations.map((op) => [op.id, op.success.status])) as Record<
  OperationId,
  number
>;

export const responseChecks: Check[] = [
  {
    id: 'responses.documented-status',
    interfaceDescription:
      'every success of an operation of the interface seen in this run has its documented status (listPets 200, createPet 201, getPet 200)',
    description:
      'every response of an operation of the interface seen in this run has a status documented for that operation',
    spec:
      'Endpoints: each operation succeeds only with its documented status (listPets 200, createPet 201, getPet ' +
      '200); refusals are 4xx',
    decision: 'Decision: the statuses our OpenAPI document lists per operation, and no other',
    async run(ctx) {
      for (const exchange of await observed(ctx)) {
        const operation = operationOf(exchange);
        if (operation === undefined || exchange.status >= 500) continue;
        if (reference(ctx)) {
          const documented: readonly number[] = DOCUMENTED_STATUSES[operation];
          if (!documented.includes(exchange.status))
            fail(`${operation} answered ${exchange.status}, documented: ${documented.join(', ')}`, exchange);
        } else if (exchange.status < 400 && exchange.status !== SUCCESS[operation]) {
          fail(`${operation} answered ${exchange.status}; its success is ${SUCCESS[operation]}`, exchange);
        }
      }
    },
  },
  {
    id: 'responses.no-server-error',
    description: 'no request of this run, however malformed, got a 5xx',
    spec: 'Errors / Conditions: bad input is refused with a 4xx; no request this suite sends may end in a 5xx',
    async run(ctx) {
      const failed = (await observed(ctx)).find((exchange) => exchange.status >= 500);
      if (failed) fail(`server error ${failed.status}: ${failed.text.slice(0, 300)}`, failed);
    },
  },
  {
    id: 'responses.error-body',
    interfaceDescription:
      'every 4xx of an operation of the interface seen in this run is an Error {code, message, status} with status = the HTTP status, as application/json',
    description:
      'every error response seen in this run is an Error {code, message, status} with status = the HTTP status, as application/json',
    spec: "Errors / Error body: every 4xx of the interface's operations carries an Error {code, message, status}",
    decision: 'Decision: errors (every error, also on unknown paths and methods, is an Error body)',
    async run(ctx) {
      for (const exchange of await observed(ctx)) {
        if (exchange.status < 400) continue;
        if (reference(ctx)) expectError(ctx, exchange, exchange.status);
        else if (exchange.status < 500 && operationOf(exchange) !== undefined)
          expectError(ctx, exchange, exchange.status);
      }
    },
  },
  {
    id: 'responses.content-type',
    interfaceDescription:
      'every response of an operation of the interface with a body seen in this run is Content-Type application/json',
    description:
      "every response with a body seen in this run is Content-Type application/json, but the change feed's stream: text/event-stream",
    spec: "Endpoints: request and response bodies of the interface's operations are application/json",
    decision:
      'Decision: every response with a body is application/json, also on unknown paths; the change feed (a stream) is text/event-stream',
    async run(ctx) {
      for (const exchange of await observed(ctx)) {
        // A stream's body is what was read of it (maybe nothing yet): its media type says what it is either way.
        if (isStreamAnswer(exchange)) expectEventStreamContentType(exchange);
        else if (exchange.text === '' && exchange.stream === undefined) continue;
        else if (reference(ctx) || operationOf(exchange) !== undefined) expectJsonContentType(exchange);
      }
    },
  },
  {
    id: 'responses.openapi',
    description:
      "every response of an operation seen in this run matches the deployment's own OpenAPI document: a status it lists, required headers, a body its schema accepts",
    spec: "the deployment's own OpenAPI document (--openapi, default <base-url>/openapi.json): what it publishes is what it does",
    async run(ctx) {
      if (ctx.openapi === undefined) skip(ctx.openapiUnavailable ?? 'no OpenAPI document');
      let checked = 0;
      for (const exchange of await observed(ctx)) {
        const problem = ctx.openapi.problemWith(exchange);
        if (problem !== undefined) fail(problem, exchange);
        if (ctx.openapi.operationOf(exchange) !== undefined) checked += 1;
      }
      if (checked === 0)
        fail(
          `no response of this run is an operation of ${ctx.openapi.source}: do its paths and servers match?`,
        );
    },
  },
];
