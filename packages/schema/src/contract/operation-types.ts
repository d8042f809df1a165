// Types derived from the declared operations: their ids, inputs and outputs, as callers and the service see them.
import type * as z from 'zod/mini';
import type { contract } from './operations.js';
import type { HttpMethod } from './types.js';

export type Contract = typeof contract;
export type OperationId = keyof Contract;

/** The ids of the operations served over REST. */
export type RestOperationId = {
  [Id in OperationId]: Contract[Id] extends { method: HttpMethod } ? Id : never;
}[OperationId];

/** The typed input of an operation as a caller may write it (int64 as number or bigint), and once parsed. */
export type OperationInput<Id extends OperationId> = z.input<Contract[Id]['input']>;
export type OperationParsedInput<Id extends OperationId> = z.output<Contract[Id]['input']>;
/** What an operation answers with on success (no body: `undefined`; a stream: its events, as they come). */
export type OperationOutput<Id extends OperationId> = Contract[Id]['success'] extends {
  body: { schema: infer S extends z.ZodMiniType };
}
  ? z.output<S>
  : Contract[Id]['success'] extends { stream: { event: { schema: infer E extends z.ZodMiniType } } }
    ? AsyncIterable<z.output<E>>
    : undefined;
