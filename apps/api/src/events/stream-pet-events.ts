import { EventPositionTextSchema, type OperationParsedInput } from '@petstore/schema';
import { describeIssues } from '@petstore/schema/internal';
import { operationError } from '../errors.js';
import type { OperationContext, SentPosition } from '../operations.js';
import type { PetFeed } from './pet-feed.js';

type StreamInput = OperationParsedInput<'streamPetEvents'>;

const contradiction = (message: string) => operationError<'streamPetEvents'>('validation_failed', message);

/** A position's text decoded (the one decoder, both transports); 400 naming where it came from. */
function decoded({ source, text }: SentPosition): bigint {
  const parsed = EventPositionTextSchema.safeParse(text);
  if (!parsed.success) throw contradiction(`${source}: ${describeIssues(parsed.error, 'field', text)}`);
  return parsed.data;
}

/**
 * Where a subscriber resumes, by one rule for every place a position can be given (docs/interface-decisions.md, the
 * change feed). Positions come in the order the client set them: `since` and the input's `lastEventId` when it
 * opened the stream, then the last event id its EventSource sends on every reconnect (REST: the header, read into
 * the input's `lastEventId`; tRPC: the header or a query parameter, `connection.lastEventIds`). The reconnect's own
 * places must agree (they are one EventSource's one id); a later position is never before an earlier one (the
 * stream only moves on: a reconnect to the URL the stream was opened with sends a later id, never an earlier one).
 * Anything else is 400 naming both; otherwise the positions given, in that order (the stream resumes after the
 * last). An empty last event id is none, as in the WHATWG HTML standard (an EventSource whose last event id is empty
 * sends none).
 */
function givenPositions({ since, lastEventId }: StreamInput, lastEventIds?: readonly SentPosition[]) {
  const chain: { source: string; position: bigint }[] = [];
  if (since !== undefined) chain.push({ source: 'since', position: since });
  // On REST the input's lastEventId is the header, named as tRPC names that header; on tRPC it is the input's field.
  const inputName = lastEventIds === undefined ? 'Last-Event-ID header' : 'lastEventId (input)';
  if (lastEventId)
    chain.push({ source: inputName, position: decoded({ source: inputName, text: lastEventId }) });
  const reconnect = (lastEventIds ?? []).filter(({ text }) => text !== '');
  const [first, ...others] = reconnect.map((sent) => ({ source: sent.source, position: decoded(sent) }));
  for (const other of others) {
    if (other.position !== first?.position) {
      throw contradiction(
        `${first?.source} ${first?.position} and ${other.source} ${other.position} differ: ` +
          'a reconnect sends one last event id',
      );
    }
  }
  if (first !== undefined) chain.push(first);
  for (const [index, later] of chain.entries()) {
    const earlier = chain.slice(0, index).find(({ position }) => later.position < position);
    if (earlier !== undefined) {
      throw contradiction(
        `${later.source} ${later.position} is before ${earlier.source}${earlier.source === 'since' ? '=' : ' '}` +
          `${earlier.position}: the two contradict each other`,
      );
    }
  }
  return chain;
}

/** streamPetEvents, the change feed's operation, over the process's feed: REST (SSE) and tRPC both call it. */
export function createStreamPetEvents(feed: Pick<PetFeed, 'follow'>) {
  return async (input: StreamInput, { caller, connection }: OperationContext) => {
    const given = givenPositions(input, connection?.lastEventIds);
    return feed.follow({
      ...caller,
      after: given.at(-1)?.position,
      // `since=0` (and no last event id) is every event still kept; a last event id of 0 is a position like any
      // other (410 once pruned).
      everythingKept: input.since === 0n && given.length === 1,
      status: input.status,
      signal: connection?.signal ?? new AbortController().signal,
      onStalled: connection?.close,
    });
  };
}
