import { EventPositionTextSchema, type OperationParsedInput, type PetEvent } from '@petstore/schema';
import { describeIssues } from '@petstore/schema/internal';
import { operationError } from '../errors.js';
import type { OperationContext } from '../operations.js';
import type { PetFeed } from './pet-feed.js';

/**
 * Where a subscriber resumes: after `lastEventId` (text on both transports, decoded here), else `since`, else now.
 * Both given: a reconnect to the URL the stream was opened with, so `lastEventId` wins; one before `since` is a 400.
 * An empty one is none, as in the WHATWG HTML standard (an EventSource whose last event id is empty sends none).
 */
function resumePosition({ since, lastEventId }: OperationParsedInput<'streamPetEvents'>): bigint | undefined {
  if (lastEventId === undefined || lastEventId === null || lastEventId === '') return since;
  const parsed = EventPositionTextSchema.safeParse(lastEventId);
  if (!parsed.success) {
    throw operationError<'streamPetEvents'>(
      'validation_failed',
      `Last-Event-ID (lastEventId): ${describeIssues(parsed.error, 'field', lastEventId)}`,
    );
  }
  if (since !== undefined && parsed.data < since) {
    throw operationError<'streamPetEvents'>(
      'validation_failed',
      `Last-Event-ID (lastEventId) ${parsed.data} is before since=${since}: the two contradict each other`,
    );
  }
  return parsed.data;
}

/** streamPetEvents, the change feed's operation, over the process's feed: REST (SSE) and tRPC both call it. */
export function createStreamPetEvents(feed: Pick<PetFeed, 'follow'>) {
  return async (
    input: OperationParsedInput<'streamPetEvents'>,
    { caller, connection }: OperationContext,
  ): Promise<AsyncIterable<PetEvent>> =>
    feed.follow({
      after: resumePosition(input),
      // `since=0` is every event still kept; a Last-Event-ID of 0 is a position like any other (410 once pruned).
      everythingKept: input.since === 0n && (input.lastEventId ?? '') === '',
      status: input.status,
      subject: caller.subject,
      issuedKeyHash: caller.issuedKeyHash,
      signal: connection?.signal ?? new AbortController().signal,
      onStalled: connection?.close,
    });
}
