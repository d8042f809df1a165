import type { OperationId, OperationOutput, OperationParsedInput } from '@petstore/schema';

/** Who is calling. */
export interface Caller {
  /**
   * The caller's identity, from its key: `key:<first 32 hex digits of the key's SHA-256>` (keys/api-key-digest.ts
   * `callerIdentity`), for API_KEYS and issued keys alike. The same on every instance, whatever the order of
   * API_KEYS; never the key. The one name idempotency scopes and rate-limit windows are kept under.
   */
  subject: string;
}

/** The connection a streaming operation (the change feed) answers on. */
export interface StreamConnection {
  /** Aborted when the client goes (or the transport stops the stream): the operation stops producing. */
  signal: AbortSignal;
  /** Drops the connection: for a client that stopped reading (it reconnects and resumes from its last id). */
  close(): void;
}

/** What every operation is told about the call besides its input: who made it (keys idempotency records). */
export interface OperationContext {
  caller: Caller;
  /** Present for a streaming operation only. */
  connection?: StreamConnection | undefined;
}

/**
 * What serves the contract: one function per operation, keyed by operationId, taking the operation's parsed
 * input. REST and tRPC are both mounted from the contract over the same handlers, so a new operation is a
 * contract entry plus a service function, and both transports serve it.
 */
export type OperationHandlers = {
  [Id in OperationId]: (
    input: OperationParsedInput<Id>,
    context: OperationContext,
  ) => Promise<OperationOutput<Id>>;
};

/** Any operation's handler, as the transports call it (they read the input from the contract, untyped). */
export type OperationHandler = (input: never, context: OperationContext) => Promise<unknown>;
