import { operations, trpcPath } from '@petstore/schema';
import { restOperations } from '@petstore/schema/internal';

// What a request is, for metrics and traces (docs/operations.md#metrics): never a raw path or an id, so the label
// set is known in advance. A handler that recognises its request stores a label (built once) on the response.

export type Transport = 'rest' | 'trpc' | 'mcp' | 'none';

export interface OperationLabel {
  /** `listPets`, `pets.list`, `healthz`, `unknown`... */
  readonly operation: string;
  readonly transport: Transport;
}

const label = (operation: string, transport: Transport): OperationLabel => ({ operation, transport });

/** Anything no handler claimed: unknown paths (404), outside /v1 and inside it. */
const UNKNOWN_LABEL = label('unknown', 'none');
/** A REST path of the contract with a method it does not serve (405, OPTIONS). */
export const REST_UNMATCHED_LABEL = label('unknown', 'rest');
/** A tRPC call to no known procedure. */
const TRPC_UNKNOWN_LABEL = label('unknown', 'trpc');
/** A tRPC batch whose calls are not all the same procedure. */
const TRPC_BATCH_LABEL = label('batch', 'trpc');
export const HEALTHZ_LABEL = label('healthz', 'none');
export const READYZ_LABEL = label('readyz', 'none');
/** An MCP request (/v1/mcp): one JSON-RPC message, of any method. */
export const MCP_LABEL = label('mcp', 'mcp');
/** The /docs page, its assets and the OpenAPI document. */
export const DOCS_LABEL = label('docs', 'none');

/** REST operations by operationId. */
export const REST_LABELS: ReadonlyMap<string, OperationLabel> = new Map(
  restOperations.map((op) => [op.id, label(op.id, 'rest')]),
);
/** tRPC procedures by path (`pets.list`). */
const TRPC_LABELS: ReadonlyMap<string, OperationLabel> = new Map(
  operations.map((op) => [trpcPath(op), label(trpcPath(op), 'trpc')]),
);

const OPERATION = Symbol('petstore.operation');
type Labelled = { [OPERATION]?: OperationLabel };

/** Says which operation this response answers; the last call wins. */
export function labelResponse(res: object, operationLabel: OperationLabel): void {
  (res as Labelled)[OPERATION] = operationLabel;
}

export function responseLabel(res: object): OperationLabel {
  return (res as Labelled)[OPERATION] ?? UNKNOWN_LABEL;
}

/** The label of a tRPC request for its procedure paths: one procedure (batched or not), or a mixed batch. */
export function trpcLabel(paths: readonly string[]): OperationLabel {
  const first = paths[0] as string;
  for (let i = 1; i < paths.length; i++) if (paths[i] !== first) return TRPC_BATCH_LABEL;
  return TRPC_LABELS.get(first) ?? TRPC_UNKNOWN_LABEL;
}
