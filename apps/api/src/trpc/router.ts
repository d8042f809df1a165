import {
  type Contract,
  contract as defaultContract,
  type OperationContract,
  type OperationId,
  type OperationOutput,
} from '@petstore/schema';
import type { TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import type { z } from 'zod';
import type { OperationContext, OperationHandlers } from '../operations.js';
import { procedure, router, type TrpcContext, toTrpcError } from './trpc.js';

// The tRPC router, built from the contract: each operation becomes `<router>.<procedure>` (pets.list, ...),
// a query or a mutation as the contract says, with the contract's input and output schemas, over the same
// handlers as REST. A new operation in the contract is a new procedure here with no code to write.

type OperationProcedure<Id extends OperationId> = {
  input: z.input<Contract[Id]['input']>;
  output: OperationOutput<Id>;
  meta: object;
};

type ProcedureOf<Id extends OperationId> = Contract[Id]['trpc']['kind'] extends 'mutation'
  ? TRPCMutationProcedure<OperationProcedure<Id>>
  : TRPCQueryProcedure<OperationProcedure<Id>>;

type RouterNames = Contract[OperationId]['trpc']['router'];

/** `{ pets: { list: <query>, create: <mutation>, get: <query> } }`, typed from the contract. */
export type AppRouterRecord = {
  [R in RouterNames]: {
    [Id in OperationId as Contract[Id]['trpc']['router'] extends R
      ? Contract[Id]['trpc']['procedure']
      : never]: ProcedureOf<Id>;
  };
};

function buildRecord(handlers: OperationHandlers, operations: readonly OperationContract[]): AppRouterRecord {
  const call = handlers as unknown as Record<
    OperationId,
    (input: unknown, context: OperationContext) => Promise<unknown>
  >;
  const record: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const handle = call[op.id as OperationId];
    // No `.output()`: like REST, tRPC sends what the service returns without validating it again (its type is
    // the contract's already); validating 20 pets through zod cost a third of a tRPC list call. No middleware
    // either: domain errors are mapped here, in the resolver (trpc.ts toTrpcError). Anything added to a
    // procedure sends its calls to tRPC's own handler (trpc-fast-path.ts plainProcedure).
    const built = procedure.input(op.input);
    const resolve = ({ input, ctx }: { input: unknown; ctx: TrpcContext }) =>
      handle(input, { caller: ctx.caller }).catch((error: unknown) => {
        throw toTrpcError(error);
      });
    const group = record[op.trpc.router] ?? {};
    group[op.trpc.procedure] = op.trpc.kind === 'mutation' ? built.mutation(resolve) : built.query(resolve);
    record[op.trpc.router] = group;
  }
  return record as unknown as AppRouterRecord;
}

/**
 * The tRPC router over the operation handlers, one procedure per operation of `contract` (default the
 * interface's; a test contract with an extra operation gets its procedure too, untyped by AppRouter).
 */
export function createAppRouter(
  handlers: OperationHandlers,
  contract: Readonly<Record<string, OperationContract>> = defaultContract,
) {
  return router(buildRecord(handlers, Object.values(contract)));
}

export type AppRouter = ReturnType<typeof createAppRouter>;
