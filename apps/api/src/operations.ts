import type { OperationId, OperationOutput, OperationParsedInput } from '@petstore/schema';

/**
 * What serves the contract: one function per operation, keyed by operationId, taking the operation's parsed
 * input. REST and tRPC are both mounted from the contract over the same handlers, so a new operation is a
 * contract entry plus a service function, and both transports serve it.
 */
export type OperationHandlers = {
  [Id in OperationId]: (input: OperationParsedInput<Id>) => Promise<OperationOutput<Id>>;
};
