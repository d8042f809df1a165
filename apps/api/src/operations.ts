import type { OperationId, OperationOutput, OperationParsedInput } from '@petstore/schema';

/** Who is calling. */
export interface Caller {
  /** `callerIdentity` of the key (keys/api-key-digest.ts): what idempotency scopes and rate limits are kept under. */
  subject: string;
  /**
   * An issued key's SHA-256 digest (the one `subject` is made from), by which an open stream re-checks that the key
   * was not revoked since. Absent for a key of API_KEYS, which only a restart removes.
   */
  issuedKeyHash?: Buffer;
}

/** The connection a streaming operation (the change feed) answers on. */
export interface StreamConnection {
  /** Aborted when the client goes (or the transport stops the stream): the operation stops producing. */
  signal: AbortSignal;
  /** Drops the connection: for a client that stopped reading (it reconnects and resumes from its last id). */
  close(): void;
  /**
   * The last event id the client's EventSource sent on reconnecting, each place it was found (named for messages),
   * on a transport that reads it apart from the input (tRPC: its header or query parameters, while the input's own
   * `lastEventId` is where the stream was opened). REST reads its one place, the header, into the input.
   */
  lastEventIds?: readonly SentPosition[] | undefined;
}

/** An event position as the client sent it: where, and its text. */
export interface SentPosition {
  source: string;
  text: string;
}

/** What every operation is told about the call besides its input. */
export interface OperationContext {
  caller: Caller;
  /** Present for a streaming operation only. */
  connection?: StreamConnection | undefined;
}

/** What serves the contract: one function per operation, keyed by operationId; every transport calls them. */
export type OperationHandlers = {
  [Id in OperationId]: (
    input: OperationParsedInput<Id>,
    context: OperationContext,
  ) => Promise<OperationOutput<Id>>;
};

/** Any operation's handler, as the transports call it (they read the input from the contract, untyped). */
export type OperationHandler = (input: never, context: OperationContext) => Promise<unknown>;
