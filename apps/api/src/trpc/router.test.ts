import { contract, trpcPath } from '@petstore/schema';
import { describe, expect, it } from 'vitest';
import type { OperationHandlers } from '../operations.js';
import { createAppRouter } from './router.js';
import { routerProcedures } from './trpc-fast-path.js';

// No procedure runs here: the handlers are never called.
const handlers = {} as OperationHandlers;

describe('the tRPC router built from the contract', () => {
  it("carries each operation's stability level as its procedure's meta, and stays on the fast path", () => {
    const levels = { ...contract, pagePets: { ...contract.pagePets, stability: 'experimental' as const } };
    const { byPath, fast } = routerProcedures(createAppRouter(handlers, levels));
    for (const op of Object.values(levels)) {
      expect(byPath.get(trpcPath(op))?._def.meta, op.id).toEqual({ stability: op.stability });
      // The meta adds no middleware: the procedure is still served without tRPC's handler. A subscription is
      // always tRPC's own (its SSE stream).
      expect(fast.get(trpcPath(op))?.meta, op.id).toEqual(
        op.trpc.kind === 'subscription' ? undefined : { stability: op.stability },
      );
    }
    expect(byPath.get('pets.page')?._def.meta).toEqual({ stability: 'experimental' });
  });
});
